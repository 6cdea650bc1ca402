"""`kubectl pd snapshot`: what a diagnosis read, kept, redacted, and laid out for `why-pending --from-file`.

- `Recorder` wraps the run's Source and keeps every object a read returned (get, list, and the raw GETs of the
  visibility API and Kueue's ConfigMap), the raw reads answered 404 (an API not served), and the reads that
  failed. Nothing is read that the diagnosis does not read: the snapshot command runs the diagnosis itself
  through the recorder.
- `redact` makes the copy that is written, by structure (issue 42): what a diagnosis reads is kept, the rest
  dropped: no Secret; of a container its name, image, resources and restartPolicy only (args, command, env,
  probes, lifecycle dropped, wherever they appear); annotations of Kueue, the operator and ours only; no
  managedFields, no last-applied annotation. In what stays, credentials by field name and, inside texts, by
  shape (`scrub_text`, also for the header's error texts, with the run's own credentials). `Tally` counts
  what was dropped and redacted, by kind, for the header.
- `documents` orders what is written: the header first, then the objects of each kind by namespace and name
  (the order an API server lists them in, which a snapshot's lists keep).
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable
from typing import Any

from kubectl_pd.cluster.slim import slim
from kubectl_pd.cluster.source import Obj, Origin, name_of, namespace_of
from kubectl_pd.lazyre import lazy

REDACTED = "<redacted>"
VISIBILITY_KIND = "PendingWorkloadsSummary"

# keys whose string values are credentials, wherever they appear (annotations, ConfigMap data, specs)
_SECRET_KEY = lazy(r"(?i)(token|passw(or)?d|secret|credential|private[-_.]?key|client[-_.]?key|"
                   r"tls\.(crt|key)|ca\.crt|cert(ificate)?s?(-data)?$|ca[-_]?bundle|ca[-_]?data|api[-_]?key|"
                   r"bearer|kubeconfig)")
# credentials inside a text (a condition message, an Event, an annotation's JSON or URL): the credential part
# replaced, the rest of the text kept. A PEM block or a JWT whole; a Bearer or Basic header's value; a URL's
# user:password; the value after a credential-named key (`token=V`, `"apiKey": "V"`) or flag (`--hf-token V`).
_CRED_WORD = r"[\w.-]*(?:token|secret|api[-_]?key|passw(?:or)?d|credential)[\w.-]*"
_SECRET_TEXT = lazy(
    r"(?P<pem>(?s:-----BEGIN [A-Z ]*-----(?:.*?-----END [A-Z ]*-----\s*|.*)))"
    r"|(?P<jwt>\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?)"
    r"|(?P<p1>(?i:\b(?:bearer|basic)\s+))(?P<v1>[A-Za-z0-9._~+/=-]{6,})"
    r"|(?P<p2>://)(?P<v2>[^/\s:@]+:[^/\s@]+)(?=@)"
    r"|(?P<p3>(?i:\b" + _CRED_WORD + r")[\"']?\s*[:=]\s*[\"']?)(?P<v3>[^\s\"',;&}]+)"
    r"|(?P<p4>(?i:(?<![\w-])--?" + _CRED_WORD + r")\s+)(?P<v4>[^\s\"',;&-][^\s\"',;&]*)")
_HINTS = ("token", "secret", "key", "pass", "credential", "bearer", "basic", "://", "-----begin", "eyj")
_DROPPED_KINDS = {"Secret", "ServiceAccount", "TokenReview", "CertificateSigningRequest"}
# keys that look like the above but name a reference or a Kubernetes field, never a credential value
_SAFE_KEYS = {"secretName", "secretRef", "serviceAccountName", "automountServiceAccountToken",
              "tokenExpirationSeconds", "tokenRequests", "secretKeyRef"}
# What a diagnosis reads of a container: its name and image, its requests and limits, whether an init
# container is a sidecar. Everything else of it (args, command, env, probes, lifecycle, mounts, ...) is dropped.
_CONTAINER_KEPT = frozenset({"name", "image", "resources", "restartPolicy"})
_CONTAINER_LISTS = frozenset({"containers", "initContainers", "ephemeralContainers"})
# fields that carry a program's arguments or environment wherever they are (a ModelDeployment's roles too)
_DROPPED_FIELDS = {"args": "args", "command": "command", "extraArgs": "args", "env": "env", "envFrom": "env",
                   "livenessProbe": "probes", "readinessProbe": "probes", "startupProbe": "probes",
                   "lifecycle": "lifecycle"}
# annotations a diagnosis reads: Kueue's, the operator's, ours; any other annotation is dropped
_KEPT_ANNOTATION_DOMAINS = ("kueue.x-k8s.io", "gpustack.ai", "kubectl-pd.io")


class Tally:
    """What a snapshot left out: fields dropped and values redacted, each by kind (the header says both)."""

    def __init__(self) -> None:
        self.dropped: dict[str, int] = {}
        self.redacted: dict[str, int] = {}

    def drop(self, kind: str, n: int = 1) -> None:
        self.dropped[kind] = self.dropped.get(kind, 0) + n

    def redact(self, kind: str, n: int = 1) -> None:
        self.redacted[kind] = self.redacted.get(kind, 0) + n

    def add(self, other: Tally) -> None:
        for k, n in other.dropped.items():
            self.drop(k, n)
        for k, n in other.redacted.items():
            self.redact(k, n)

    def header(self) -> dict[str, dict[str, int]]:
        return {"dropped": dict(sorted(self.dropped.items())), "redacted": dict(sorted(self.redacted.items()))}


def scrub_text(text: str, tally: Tally | None = None) -> str:
    """`text` with the run's own credentials (what the terminal redacts) and any credential it shows by shape
    replaced by "<redacted>": for error and status texts written into a snapshot."""
    from kubectl_pd.termsafe import redact as run_redact

    out = run_redact(text)
    if out != text and tally is not None:
        tally.redact("runCredential")
    n = [0]

    def hit(m: re.Match[str]) -> str:
        for g in ("1", "2", "3", "4"):
            if m.group("p" + g) is not None:
                if m.group("v" + g) == REDACTED:
                    return m.group()
                n[0] += 1
                return m.group("p" + g) + REDACTED
        n[0] += 1
        return REDACTED

    low = out.lower()
    if any(h in low for h in _HINTS):
        out = _SECRET_TEXT.sub(hit, out)
    if n[0] and tally is not None:
        tally.redact("credentialText", n[0])
    return out


class Recorder:
    """A Source that forwards to `inner` and keeps what came back (thread-safe: reads run together)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.is_live = bool(getattr(inner, "is_live", False))
        self.objects: dict[tuple[str, str, str], Obj] = {}
        self.not_served: list[str] = []  # raw paths answered 404
        self.failed: list[dict[str, Any]] = []  # the reads that failed: what, and the error (replayed)
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:  # served_versions, context_name, server, parallel ...
        return getattr(self.inner, name)

    def keep(self, obj: Any) -> None:
        if not isinstance(obj, dict) or not isinstance(obj.get("kind"), str):
            return
        key = (obj["kind"], namespace_of(obj) or "", name_of(obj))
        with self._lock:
            self.objects.setdefault(key, obj)

    def _failed(self, read: dict[str, Any], e: Exception) -> None:
        """A failed read, kept so that a replay fails it the same way (cluster/snapshot.py: Replay)."""
        from kubectl_pd.errors import FieldSelectorUnsupported, ForbiddenError, NotFoundError, PdError

        if not isinstance(e, PdError) or isinstance(e, NotFoundError | FieldSelectorUnsupported):
            return  # a snapshot applies field selectors itself
        row = {**{k: v for k, v in read.items() if v}, "error": type(e).__name__, "message": e.message}
        if isinstance(e, ForbiddenError):
            row.update(errorVerb=e.verb, resource=e.resource, refusal=e.refusal)
            if e.namespace:
                row["errorNamespace"] = e.namespace
        with self._lock:
            if row not in self.failed:
                self.failed.append(row)

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        try:
            obj = self.inner.get(kind, name, namespace)
        except Exception as e:
            self._failed({"verb": "get", "kind": _kind(kind), "namespace": namespace, "name": name}, e)
            raise
        self.keep(obj)
        return obj  # type: ignore[no-any-return]

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None, *, reduce: Callable[[Obj], Obj | None] | None = None) -> list[Obj]:
        try:
            objs = self.inner.list(kind, namespace, label_selector, field_selector, reduce=reduce)
        except Exception as e:
            self._failed({"verb": "list", "kind": _kind(kind), "namespace": namespace,
                          "labelSelector": label_selector, "fieldSelector": field_selector}, e)
            raise
        for o in objs:
            self.keep(o)
        return objs  # type: ignore[no-any-return]

    def get_raw(self, path: str, query: dict[str, Any] | None = None, **kw: Any) -> Any:
        try:
            doc = self.inner.get_raw(path, query, **kw)
        except Exception as e:
            self._failed({"verb": "get", "path": path}, e)
            raise
        if doc is None:
            with self._lock:
                if path not in self.not_served:
                    self.not_served.append(path)
            return None
        if isinstance(doc, dict) and doc.get("kind") == VISIBILITY_KIND:
            kept = dict(doc)  # the summary names its ClusterQueue, so a replay gives each queue its own
            meta = dict(kept.get("metadata") or {})
            meta.setdefault("name", path.rstrip("/").split("/")[-2])
            kept["metadata"] = meta
            self.keep(kept)
        else:
            self.keep(doc)
        return doc

    def origin(self, obj: Obj) -> Origin:
        return self.inner.origin(obj)  # type: ignore[no-any-return]


def _kind(kind: str) -> str:
    from kubectl_pd.cluster import kinds

    k = kinds.lookup(kind)
    return k.kind if k is not None else kind


def redact(obj: Obj, *, in_place: bool = False) -> tuple[Obj | None, int]:
    """The copy of `obj` a snapshot keeps (`in_place`: `obj` itself, redacted, for objects nothing reads any
    more), and how many values were redacted or fields dropped; None for a kind never kept."""
    kept, tally = redact_counted(obj, in_place=in_place)
    return kept, sum(tally.dropped.values()) + sum(tally.redacted.values())


def redact_counted(obj: Obj, *, in_place: bool = False) -> tuple[Obj | None, Tally]:
    """As `redact`, with what was dropped and redacted by kind."""
    tally = Tally()
    if obj.get("kind") in _DROPPED_KINDS:
        tally.drop("object")
        return None, tally
    out = slim(obj if in_place else copy.deepcopy(obj))  # managedFields and last-applied dropped
    _walk(out, tally)
    return out, tally


def _walk(node: Any, tally: Tally) -> None:
    if isinstance(node, dict):
        for key in list(node):
            value = node[key]
            if key in _DROPPED_FIELDS:
                del node[key]
                tally.drop(_DROPPED_FIELDS[key])
            elif key in _CONTAINER_LISTS and isinstance(value, list):
                for c in value:
                    _container(c, tally)
                _walk(value, tally)
            elif key == "annotations" and isinstance(value, dict):
                _annotations(value, tally)
                _walk(value, tally)
            elif isinstance(value, str):
                node[key] = _string(str(key), value, tally)
            else:
                _walk(value, tally)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            if isinstance(value, str):
                node[i] = _string("", value, tally)
            else:
                _walk(value, tally)


def _container(c: Any, tally: Tally) -> None:
    """Of a container, only what a diagnosis reads; the rest dropped, counted by kind."""
    if not isinstance(c, dict):
        return
    for key in [k for k in c if k not in _CONTAINER_KEPT]:
        del c[key]
        tally.drop(_DROPPED_FIELDS.get(key, "otherContainerFields"))


def _annotations(ann: dict[str, Any], tally: Tally) -> None:
    for key in [k for k in ann if not _kept_annotation(str(k))]:
        del ann[key]
        tally.drop("annotations")


def _kept_annotation(key: str) -> bool:
    domain = key.split("/", 1)[0] if "/" in key else ""
    return any(domain == d or domain.endswith("." + d) for d in _KEPT_ANNOTATION_DOMAINS)


def _string(key: str, value: str, tally: Tally) -> str:
    if not value or value == REDACTED:
        return value
    if key and key not in _SAFE_KEYS and _SECRET_KEY.search(key):
        tally.redact("credentialField")
        return REDACTED
    return scrub_text(value, tally)


def objects(rec: Recorder) -> tuple[list[Obj], Tally]:
    """The recorded objects, redacted, each kind in the order an API server lists it; and what was left out.
    In place: called once the diagnosis is done, when nothing reads them any more (2,000 copies cost a second)."""
    kept: list[tuple[tuple[str, str, str], Obj]] = []
    tally = Tally()
    for key, obj in rec.objects.items():
        copy_, t = redact_counted(obj, in_place=True)
        tally.add(t)
        if copy_ is not None:
            kept.append((key, copy_))
    kept.sort(key=lambda kv: kv[0])
    return [o for _k, o in kept], tally
