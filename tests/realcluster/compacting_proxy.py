"""A TLS reverse proxy on 127.0.0.1 in front of the real kube-apiserver that compacts etcd right after it
passes on a list page that carries a `continue` token: the next page's token then names a compacted
revision, and the real API server answers it with its real 410 Expired. Only the timing is ours; the token,
the compaction and the 410 are the real server's and etcd's."""

from __future__ import annotations

import base64
import http.client
import json
import ssl
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from tests.realcluster.plane import Plane


class CompactingProxy:
    def __init__(self, plane: Plane, every: bool = False) -> None:
        workdir = plane.workdir
        state = plane.state()
        self.upstream = urlsplit(state["server"])
        self.etcd = f"http://127.0.0.1:{state['ports']['etcd']}"
        pki = workdir / "pki"
        self.pki = pki
        self.every = every  # compact after every page (else only after the first)
        self.compactions = 0
        self.expired = 0  # 410s the real server answered
        self.client_ctx = plane.admin_tls()
        server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_ctx.load_cert_chain(str(pki / "serving.crt"), str(pki / "serving.key"))
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                proxy.forward(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.socket = server_ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> CompactingProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def forward(self, h: BaseHTTPRequestHandler) -> None:
        conn = http.client.HTTPSConnection(self.upstream.hostname or "127.0.0.1", self.upstream.port,
                                           context=self.client_ctx, timeout=30)
        headers = {k: v for k, v in h.headers.items() if k.lower() in ("accept", "user-agent", "accept-encoding")}
        headers["Accept-Encoding"] = "identity"
        conn.request("GET", h.path, headers=headers)
        resp = conn.getresponse()
        body = resp.read()
        if resp.status == 410:
            self.expired += 1
        if resp.status == 200 and (self.every or self.compactions == 0) and _continues(body):
            self.compact()
        h.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                h.send_header(k, v)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
        conn.close()

    def compact(self) -> None:
        """etcd's own compaction at its current revision (its gRPC gateway)."""
        key = base64.b64encode(b"/registry/compaction-probe").decode()
        put = self._etcd("/v3/kv/put", {"key": key, "value": base64.b64encode(b"x").decode()})
        rev = int(put["header"]["revision"])
        self._etcd("/v3/kv/compaction", {"revision": rev, "physical": True})
        self.compactions += 1

    def _etcd(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(self.etcd + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return dict(json.loads(r.read()))

    def kubeconfig(self, path: Path, namespace: str) -> Path:
        def b64(name: str) -> str:
            return base64.b64encode((self.pki / name).read_bytes()).decode()

        path.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "proxy",
            "clusters": [{"name": "proxy", "cluster": {"server": self.url,
                                                       "certificate-authority-data": b64("ca.crt")}}],
            "users": [{"name": "admin", "user": {"client-certificate-data": b64("admin.crt"),
                                                 "client-key-data": b64("admin.key")}}],
            "contexts": [{"name": "proxy", "context": {"cluster": "proxy", "user": "admin", "namespace": namespace}}]}))
        return path


def _continues(body: bytes) -> bool:
    try:
        meta = json.loads(body).get("metadata") or {}
    except (ValueError, AttributeError):
        return False
    return bool(meta.get("continue"))
