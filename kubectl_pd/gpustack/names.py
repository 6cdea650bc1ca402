"""Names GPUStack derives: hashed pod-group and LocalQueue names (FNV-1a, 64 bit)."""

from __future__ import annotations

from kubectl_pd.lazyre import lazy

FNV_PREFIX = "gpustack-fnv64-"
_OFFSET = 0xCBF29CE484222325
_PRIME = 0x100000001B3
_LABEL_VALUE = lazy(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_DNS_SUBDOMAIN = lazy(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def fnv1a64(text: str) -> int:
    h = _OFFSET
    for byte in text.encode("utf-8"):
        h ^= byte
        h = (h * _PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def hashed(text: str) -> str:
    """`gpustack-fnv64-` + 16 lowercase hex digits of FNV-1a 64 of `text`."""
    return f"{FNV_PREFIX}{fnv1a64(text):016x}"


def is_label_value(value: str) -> bool:
    return len(value) <= 63 and bool(_LABEL_VALUE.match(value))


def pod_group_name(namespace: str, name: str) -> str:
    """The seed design's group name: the deployment's name, or its hash when not a valid label value
    (Kueue also needs a DNS subdomain, since the Workload is named after the group)."""
    if is_label_value(name) and _DNS_SUBDOMAIN.match(name):
        return name
    return hashed(f"{namespace}/{name}")


def local_queue_name(cluster_queue: str) -> str:
    """GPUStack's LocalQueue for an InstanceType (= ClusterQueue name): always hashed, 31 characters."""
    return hashed(cluster_queue)


# GPUStack's auto-derived ClusterQueue (= InstanceType) names (reference/gpustack-modeldeployment.md §2.2, issue 31,
# issue 40): `gpustack--<key>-<os>-<arch>` (and `gpustack--<cpu>--<key>-<os>-<arch>` with
# instance-type-aware-cpu-manufacturer), as in node_queue.go@06f8117a's comments and the v0.11.2 docs, and
# `gpustack-<key>-<os>-<arch>` in nodequeue.go@000eb15f (resourceFlavorNodeQueueName), the era that also set
# `lendingLimit: 0`; that era is the OLDER one (inferred: the later node_queue.go, id 68873985490, sets no limit and
# says why). Both spellings are read.
_QUEUE_NAME = lazy(r"^gpustack-(?P<old>-(?:(?P<cpu>[a-z0-9][-a-z0-9.]*?)--)?)?(?P<key>[a-z0-9][-a-z0-9.]*?)"
                   r"-(?P<os>linux|windows|darwin)-(?P<arch>amd64|arm64|[a-z0-9]+)$")


def derived_queue_name(key: str, os: str, arch: str) -> str:
    """The single-dash name of the queue of accelerator (or CPU) key `key`, `gpustack-<key>-<os>-<arch>`, as the
    older nodequeue.go@000eb15f era spelled it (see above)."""
    return f"gpustack-{key}-{os}-{arch}"


def parse_queue_name(name: str) -> dict[str, str] | None:
    """The parts of an auto-derived queue name, either spelling (`era`: `double-dash` for `gpustack--...`,
    `single-dash` for `gpustack-<key>-...`); None for a name GPUStack did not derive (a hashed
    `gpustack-fnv64-` LocalQueue name is none)."""
    if name.startswith(FNV_PREFIX):
        return None
    m = _QUEUE_NAME.match(name)
    if m is None:
        return None
    out = {"key": m["key"], "os": m["os"], "arch": m["arch"], "era": "double-dash" if m["old"] else "single-dash"}
    if m["cpu"]:
        out["cpu"] = m["cpu"]
    return out
