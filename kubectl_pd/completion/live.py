"""Completion candidates read from the cluster: namespaces for `-n`, ModelDeployment names for targets (and,
after `lws/`, `ds/`, `deploy/`, `sts/` or `llmisvc/`, the names of that kind).

A Tab press must never hang or print errors into the shell, so every lookup runs under one deadline
(`--request-timeout`, 2s by default here, covering client import, auth and every request) and
answers an empty list on any failure. The HTTP client (ours, not the kubernetes package) loads only
inside the lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from kubectl_pd.cluster.config import ClusterOptions, default_namespace, parse_duration, read_kubeconfig
from kubectl_pd.completion import DEFAULT_TIMEOUT

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any

    # click is not imported here: the bridge's fast path answers without it
    import click
    from click.shell_completion import CompletionItem


_FIELDS = {"kubeconfig": "kubeconfig", "kube_context": "context", "namespace": "namespace",
           "request_timeout": "request_timeout", "server": "server", "token": "token", "kube_cluster": "cluster",
           "kube_user": "user", "as_user": "as_user", "as_groups": "as_groups", "as_uid": "as_uid",
           "certificate_authority": "certificate_authority", "insecure_skip_tls_verify": "insecure",
           "tls_server_name": "tls_server_name", "as_user_extra": "as_user_extra",
           "client_certificate": "client_certificate", "client_key": "client_key", "proxy_url": "proxy_url"}


def options_from_params(chain: Iterable[Mapping[str, Any]]) -> ClusterOptions:
    """Connection flags from parsed params, innermost command first (its values win)."""
    found: dict[str, Any] = {}
    for params in chain:
        for key, field in _FIELDS.items():
            if not found.get(field) and params.get(key):
                found[field] = params[key]
    timeout = found.get("request_timeout")
    if isinstance(timeout, str):  # a value whose callback did not run: parse it here, quietly
        try:
            timeout = parse_duration(timeout)
        except Exception:
            timeout = None
    found["request_timeout"] = float(timeout) if timeout else DEFAULT_TIMEOUT
    found["as_groups"] = tuple(found.get("as_groups") or ())
    found["as_user_extra"] = tuple(found.get("as_user_extra") or ())
    found["insecure"] = bool(found.get("insecure"))
    return ClusterOptions(**found)


def matching(names: Iterable[str], incomplete: str) -> list[str]:
    """Sorted, unique names that start with what was typed."""
    return sorted({n for n in names if n and n.startswith(incomplete)})


def within(deadline: float, lookup: Callable[[], list[str]]) -> list[str]:
    """Run `lookup` for at most `deadline` seconds; [] if it fails or is late (the thread is abandoned)."""
    box: list[list[str]] = []

    def run() -> None:
        try:
            box.append(list(lookup()))
        except BaseException:  # noqa: B036 - anything at all: completion stays silent
            pass

    from kubectl_pd import interrupt

    worker = interrupt.thread(run, "kubectl-pd-completion")  # never takes SIGINT: the main thread does
    interrupt.join(worker, deadline)
    return box[0] if box and not worker.is_alive() else []


def _chain(ctx: click.Context | None) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    while ctx is not None:
        out.append(ctx.params)
        ctx = ctx.parent
    return out


def _flag(ctx: click.Context | None, name: str) -> Any:
    for params in _chain(ctx):
        if params.get(name) is not None:
            return params[name]
    return None


def _list_names(opts: ClusterOptions, kind: str, namespace: str | None) -> list[str]:
    from kubectl_pd.cluster.live import LiveSource  # our own HTTP path: no kubernetes client on Tab
    from kubectl_pd.cluster.source import name_of

    # each object is cut to its name as its page arrives: a cluster's thousands are not held whole
    from kubectl_pd.completion.safe import object_name

    named = LiveSource(opts).list(kind, namespace=namespace, reduce=lambda obj: {"metadata": {"name": name_of(obj)}})
    # a name no API server could hold for that kind (`qwen;touch PWNED;#`, a newline, an ESC) is no candidate
    return [n for obj in named if object_name(kind, n := name_of(obj))]


def _items(names: list[str]) -> list[CompletionItem]:
    from click.shell_completion import CompletionItem

    from kubectl_pd.completion.safe import clean

    return [CompletionItem(n) for n in names if clean(n)]


def namespaces(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Namespaces of the cluster, for `-n/--namespace`."""
    try:
        opts = options_from_params(_chain(ctx))
        names = within(opts.request_timeout or DEFAULT_TIMEOUT, lambda: _list_names(opts, "Namespace", None))
        return _items(matching(names, incomplete))
    except Exception:
        return []


def modeldeployment_names(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """ModelDeployments in the namespace (-n, else the context's), or everywhere with -A."""
    try:
        opts = options_from_params(_chain(ctx))
        return _items(deployment_names(opts, bool(_flag(ctx, "all_namespaces")), incomplete))
    except Exception:
        return []


# `FORM/NAME` targets whose names Tab offers (pending/target.py's forms, named here so a Tab loads nothing else)
FORMS = {"md": "ModelDeployment", "modeldeployment": "ModelDeployment",
         "lws": "LeaderWorkerSet", "leaderworkerset": "LeaderWorkerSet",
         "ds": "DisaggregatedSet", "disaggregatedset": "DisaggregatedSet",
         "deploy": "Deployment", "deployment": "Deployment", "sts": "StatefulSet", "statefulset": "StatefulSet",
         "llmisvc": "LLMInferenceService", "llminferenceservice": "LLMInferenceService"}


def deployment_names(opts: ClusterOptions, everywhere: bool, incomplete: str) -> list[str]:
    """ModelDeployment names starting with `incomplete`; after `FORM/` (md/, lws/, ds/, deploy/, sts/, llmisvc/)
    the names of that kind, as `FORM/NAME`. Within the deadline; [] on any failure."""
    form, slash, typed = incomplete.partition("/")
    kind = FORMS.get(form.lower()) if slash else "ModelDeployment"
    if kind is None:
        return []

    def lookup() -> list[str]:
        ns = None if everywhere else default_namespace(opts)
        return _list_names(opts, kind, ns)

    names = matching(within(opts.request_timeout or DEFAULT_TIMEOUT, lookup), typed if slash else incomplete)
    return [f"{form}/{n}" for n in names] if slash else names


def kube_contexts(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Context names from the kubeconfig (a file read, no request), for `--context`."""
    try:
        opts = options_from_params(_chain(ctx))
        config = read_kubeconfig(ClusterOptions(kubeconfig=opts.kubeconfig))
        return _items(matching((str(c.get("name") or "") for c in config["contexts"]), incomplete))
    except Exception:
        return []


def kube_entries(ctx: click.Context, section: str, incomplete: str) -> list[CompletionItem]:
    """Cluster or user names from the kubeconfig (a file read, no request), for `--cluster` and `--user`."""
    try:
        opts = options_from_params(_chain(ctx))
        config = read_kubeconfig(ClusterOptions(kubeconfig=opts.kubeconfig))
        return _items(matching((str(c.get("name") or "") for c in config[section]), incomplete))
    except Exception:
        return []
