"""`kubectl pd tree`: a deployment's replica groups, their Workloads and Pods, each with its newest Event."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.commands.options import cluster_options, output_spec
from kubectl_pd.errors import EXIT_OK

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.output.printers import Printer


@click.command("tree", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("target", metavar="TARGET")
@click.option("-f", "--from-file", "files", multiple=True, metavar="PATH", type=click.Path(allow_dash=True),
              help="Read a snapshot (kubectl get -o yaml output, kubectl pd snapshot, directories, -). Repeatable.")
@click.option("-o", "--output", type=click.Choice(("text", "json", "yaml")), default="text", show_default=True,
              help="Output format.")
@cluster_options
def tree(cluster: ClusterOptions, target: str, files: tuple[str, ...], output: str) -> int:
    """Show how a deployment hangs together: ModelDeployment -> replica groups -> Workloads -> Pods.

    \b
    TARGET: NAME (a ModelDeployment) | md/NAME | workload/NAME | pod/NAME | podgroup/NAME | lws/NAME |
    ds/NAME | deploy/NAME | sts/NAME | llmisvc/NAME
    Each Workload with its state, queue and flavors; each Pod with its phase, node and scheduling gates;
    every object with its newest Event.

    \b
    Exit codes: 0 printed, 1 the target does not exist or a read failed, 2 usage.
    """
    from kubectl_pd.commands.common import open_manager, parse_target, target_of
    from kubectl_pd.pending.gather import gather
    from kubectl_pd.pending.tree import build

    asked = parse_target(target, bare_forms=False)
    source = open_manager(cluster, files)
    t = target_of(cluster, source, files, asked)
    facts = gather(source, t, strict=False)
    events = _events(source, t.namespace)
    _printer(output, facts).write(build(facts, events))
    if facts.incomplete:
        from kubectl_pd.pending.words import incomplete_error

        raise incomplete_error(t, facts.incomplete)
    return EXIT_OK


def _printer(output: str, facts: Any) -> Printer:
    """The tree drawn (text), else its -o json document."""
    from kubectl_pd.contract import TREE
    from kubectl_pd.output.printers import View
    from kubectl_pd.pending.tree_render import render

    def document(data: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
        doc = {"schemaVersion": TREE, **data, **_unread(facts)}
        return doc, [doc]

    return View(output_spec(output)).to_printer({"text": render}, document)


def _events(source: Source, namespace: str) -> list[Any]:
    """The namespace's Events, one list, each parsed where it is received (a refused list: no events, and the
    tree says none)."""
    from kubectl_pd import kube
    from kubectl_pd.cluster.slim import slimmer
    from kubectl_pd.errors import PdError

    try:
        return [kube.event(e) for e in source.list("Event", namespace, reduce=slimmer(source))]
    except PdError:
        return []


def _unread(facts: Any) -> dict[str, Any]:
    if not facts.incomplete:
        return {}
    from kubectl_pd.pending.words import read_text

    return {"incomplete": [{"read": read_text(u.read), "error": u.why} for u in facts.incomplete]}
