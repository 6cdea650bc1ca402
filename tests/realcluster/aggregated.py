"""A small aggregated API server of our own for `worker.gpustack.ai/v1`, as GPUStack's operator source serves it.

In the source, `v1` is the v1alpha1 struct re-declared (api/worker/v1/model_deployment.go@a916db4e) and served by the
APIService `v1.worker.gpustack.ai` (api/worker/v1/zz_generated.apiservice.go@05fb8b88), converted field for field to
the v1alpha1 storage (zz_generated.conversion.go@83017f7f). This stand-in does the same on 127.0.0.1: it answers
discovery, OpenAPI v3 (the v1alpha1 CRD's schema, named v1) and the resource; a write or read of `v1` is converted
(the apiVersion) and sent to the real kube-apiserver's v1alpha1 CRD, so the real API server's schema judges every
body, `dryRun` and `fieldValidation` passed through (Strict when absent, as kubectl asks). Registered by a Service
of type ExternalName (localhost) and the APIService, as scripts/real-cluster registers Kueue's visibility server.

Test-only; nothing here is the operator's code.
"""

from __future__ import annotations

import contextlib
import copy
import json
import ssl
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import yaml

from tests.realcluster.plane import Plane, wait_for

GROUP = "worker.gpustack.ai"
CRD_NAME = f"modeldeployments.{GROUP}"
APISERVICE = f"v1.{GROUP}"
SERVICE_NS = "kube-system"
SERVICE = "gpustack-md-v1-standin"
Obj = dict[str, Any]


def _resources() -> Obj:
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{GROUP}/v1", "resources": [
        {"name": "modeldeployments", "singularName": "modeldeployment", "namespaced": True, "kind": "ModelDeployment",
         "verbs": ["create", "get", "list"], "shortNames": []},  # the source's v1 has no short name
        {"name": "modeldeployments/status", "singularName": "", "namespaced": True, "kind": "ModelDeployment",
         "verbs": ["get"]}]}


def openapi_doc(crd: Obj) -> Obj:
    """The v1alpha1 CRD's schema, published as the v1 ModelDeployment."""
    (v,) = [x for x in crd["spec"]["versions"] if x["name"] == "v1alpha1"]
    schema = copy.deepcopy(v["schema"]["openAPIV3Schema"])
    schema["x-kubernetes-group-version-kind"] = [{"group": GROUP, "kind": "ModelDeployment", "version": "v1"}]
    return {"openapi": "3.0.0", "info": {"title": "gpustack stand-in", "version": "v1"}, "paths": {},
            "components": {"schemas": {"ai.gpustack.worker.v1.ModelDeployment": schema}}}


class Server:
    """The aggregated server: started on 127.0.0.1 with the plane's serving certificate; `requests` records what
    reached it (method, path) so a test can tell a request came through the aggregator."""

    def __init__(self, plane: Plane) -> None:
        self.plane = plane
        kc = yaml.safe_load(plane.kubeconfig.read_text())
        self.upstream = str(kc["clusters"][0]["cluster"]["server"])
        self.client = plane.admin_tls()
        self.requests: list[tuple[str, str]] = []
        self.doc = openapi_doc(plane.get("crd", CRD_NAME))
        pki = plane.workdir / "pki"
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(str(pki / "serving.crt"), str(pki / "serving.key"))
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> Server:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def forward(self, method: str, path: str, query: str, body: bytes | None) -> tuple[int, bytes]:
        """The v1 request as v1alpha1 to the real API server; its answer with the apiVersion named v1 again."""
        q = urllib.parse.parse_qs(query)
        if method == "POST" and "fieldValidation" not in q:
            q["fieldValidation"] = ["Strict"]
        if body:
            obj = json.loads(body)
            obj["apiVersion"] = f"{GROUP}/v1alpha1"
            body = json.dumps(obj).encode()
        url = (self.upstream + path.replace(f"/apis/{GROUP}/v1/", f"/apis/{GROUP}/v1alpha1/", 1)
               + ("?" + urllib.parse.urlencode(q, doseq=True) if q else ""))
        req = urllib.request.Request(url, data=body, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, context=self.client, timeout=30) as r:
                code, data = r.status, r.read()
        except urllib.error.HTTPError as e:
            code, data = e.code, e.read()
        try:
            obj = json.loads(data)
        except ValueError:
            return code, data
        if isinstance(obj, dict) and obj.get("apiVersion") == f"{GROUP}/v1alpha1":
            obj["apiVersion"] = f"{GROUP}/v1"
        return code, json.dumps(obj).encode()


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, code: int, obj: Any) -> None:
            data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _route(self, method: str) -> None:
            path, _, query = self.path.partition("?")
            server.requests.append((method, path))
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) if method == "POST" else None
            if method == "GET" and path == f"/apis/{GROUP}/v1":
                return self._send(200, _resources())
            if method == "GET" and path == "/openapi/v3":
                return self._send(200, {"paths": {f"apis/{GROUP}/v1": {
                    "serverRelativeURL": f"/openapi/v3/apis/{GROUP}/v1?hash=standin"}}})
            if method == "GET" and path == f"/openapi/v3/apis/{GROUP}/v1":
                return self._send(200, server.doc)
            if path.startswith(f"/apis/{GROUP}/v1/namespaces/") and "/modeldeployments" in path:
                return self._send(*server.forward(method, path, query, body))
            return self._send(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
                                    "code": 404, "message": f"{path} is not served by the stand-in"})

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self._route("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._route("POST")

    return Handler


def _discovered(plane: Plane) -> list[str]:
    return [v["version"] for v in json.loads(plane.kubectl("get", "--raw", f"/apis/{GROUP}").stdout)["versions"]]


def _set_crd_v1(plane: Plane, served: bool) -> None:
    crd = plane.get("crd", CRD_NAME)
    crd.pop("status", None)
    for v in crd["spec"]["versions"]:
        if v["name"] == "v1":
            v["served"] = served
    plane.kubectl("replace", "-f", "-", input=json.dumps(crd))


@contextlib.contextmanager
def serve(plane: Plane) -> Iterator[Server]:
    """While the block runs, `worker.gpustack.ai/v1` comes from our aggregated server, not the CRD (whose own v1, if
    it has one, is unserved); after it, the CRD's versions and the APIService are as before."""
    crd_v1 = [v for v in plane.get("crd", CRD_NAME)["spec"]["versions"] if v["name"] == "v1"]
    had_v1 = bool(crd_v1) and bool(crd_v1[0].get("served"))
    if had_v1:
        _set_crd_v1(plane, served=False)
        wait_for("the CRD's v1 unserved", lambda: "v1" not in _discovered(plane)
                 and plane.kubectl("get", "apiservice", APISERVICE, check=False).returncode != 0)
    server = Server(plane).start()
    try:
        plane.apply({"apiVersion": "v1", "kind": "Service", "metadata": {"name": SERVICE, "namespace": SERVICE_NS},
                     "spec": {"type": "ExternalName", "externalName": "localhost"}},
                    {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": APISERVICE},
                     "spec": {"group": GROUP, "version": "v1", "insecureSkipTLSVerify": True,
                              "groupPriorityMinimum": 1000, "versionPriority": 15,
                              "service": {"name": SERVICE, "namespace": SERVICE_NS, "port": server.port}}})
        wait_for("the stand-in's APIService available", lambda: any(
            c["type"] == "Available" and c["status"] == "True"
            for c in (plane.get("apiservice", APISERVICE).get("status") or {}).get("conditions") or []))
        wait_for("v1 discovered from the stand-in", lambda: "v1" in _discovered(plane))
        yield server
    finally:
        plane.kubectl("delete", "apiservice", APISERVICE, "--ignore-not-found", check=False)
        plane.kubectl("delete", "service", SERVICE, "-n", SERVICE_NS, "--ignore-not-found", check=False)
        server.stop()
        if had_v1:
            wait_for("the stand-in's APIService gone", lambda: "v1" not in _discovered(plane))
            _set_crd_v1(plane, served=True)
            wait_for("the CRD's v1 served again", lambda: "v1" in _discovered(plane))
