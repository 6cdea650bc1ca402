"""`kubectl pd snapshot`: what a diagnosis read, kept, redacted, and laid out for `why-pending --from-file`.

- `Recorder` wraps the run's Source and keeps every object a read returned (get, list, and the raw GETs of the
  visibility API and Kueue's ConfigMap), the raw reads answered 404 (an API not served), and the reads that
  failed. Nothing is read that the diagnosis does not read: the snapshot command runs the diagnosis itself
  through the recorder.
- `redact` makes the copy that is written: no Secret, no container environment value, no token, key or
  certificate (by field name and by shape), no managedFields, no last-applied annotation.
- `documents` orders what is written: the header first, then the objects of each kind by namespace and name
  (the order an API server lists them in, which a snapshot's lists keep).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any

from kubectl_pd.cluster.source import Obj, Origin, name_of, namespace_of
from kubectl_pd.lazyre import lazy
from kubectl_pd.slim import slim

REDACTED = "<redacted>"
VISIBILITY_KIND = "PendingWorkloadsSummary"

# keys whose string values are credentials, wherever they appear (annotations, ConfigMap data, specs)
_SECRET_KEY = lazy(r"(?i)(token|passw(or)?d|secret|credential|private[-_.]?key|client[-_.]?key|"
                   r"tls\.(crt|key)|ca\.crt|cert(ificate)?s?(-data)?$|ca[-_]?bundle|ca[-_]?data|api[-_]?key|"
                   r"bearer|kubeconfig)")
_SECRET_TEXT = lazy(r"-----BEGIN [A-Z ]*-----|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}|"
                    r"(?i:\bbearer\s+[A-Za-z0-9._~+/=-]{8,})")
_DROPPED_KINDS = {"Secret", "ServiceAccount", "TokenReview", "CertificateSigningRequest"}
# keys that look like the above but name a reference or a Kubernetes field, never a credential value
_SAFE_KEYS = {"secretName", "secretRef", "serviceAccountName", "automountServiceAccountToken",
              "tokenExpirationSeconds", "tokenRequests", "secretKeyRef"}


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
    more), and how many values were redacted; None for a kind never kept."""
    if obj.get("kind") in _DROPPED_KINDS:
        return None, 1
    out = slim(obj if in_place else copy.deepcopy(obj))  # managedFields and last-applied dropped
    count = [0]
    _walk(out, count)
    return out, count[0]


def _walk(node: Any, count: list[int]) -> None:
    if isinstance(node, dict):
        for key in list(node):
            value = node[key]
            if key == "env" and isinstance(value, list):
                node[key] = [_env(e, count) for e in value]
            elif isinstance(value, str) and _secret_value(str(key), value):
                node[key] = REDACTED
                count[0] += 1
            else:
                _walk(value, count)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            if isinstance(value, str) and _SECRET_TEXT.search(value):
                node[i] = REDACTED
                count[0] += 1
            else:
                _walk(value, count)


def _secret_value(key: str, value: str) -> bool:
    if not value or value == REDACTED:
        return False
    if key not in _SAFE_KEYS and _SECRET_KEY.search(key):
        return True
    return _SECRET_TEXT.search(value) is not None


def _env(entry: Any, count: list[int]) -> Any:
    """A container's environment variable: its name kept, its value (or where it comes from) not."""
    if not isinstance(entry, dict):
        count[0] += 1
        return REDACTED
    if "value" in entry or "valueFrom" in entry:
        count[0] += 1
        return {"name": entry.get("name"), "value": REDACTED}
    return {"name": entry.get("name")}


def objects(rec: Recorder) -> tuple[list[Obj], int]:
    """The recorded objects, redacted, each kind in the order an API server lists it; and the count redacted.
    In place: called once the diagnosis is done, when nothing reads them any more (2,000 copies cost a second)."""
    kept: list[tuple[tuple[str, str, str], Obj]] = []
    redacted = 0
    for key, obj in rec.objects.items():
        copy_, n = redact(obj, in_place=True)
        redacted += n
        if copy_ is not None:
            kept.append((key, copy_))
    kept.sort(key=lambda kv: kv[0])
    return [o for _k, o in kept], redacted
