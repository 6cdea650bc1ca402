"""The English of `why-pending -A --watch`: the table (redrawn in place on a terminal), or one line per change."""

from __future__ import annotations

from kubectl_pd.pending.screen_words import nothing_pending
from kubectl_pd.pending.target import OWNER_KINDS
from kubectl_pd.pending.watch_all import Row, Rows

KINDS = {"ModelDeployment": "md", "Workload": "wl", "PodGroup": "podgroup"}
WORDS = {"pending": "pending", "changed": "still pending", "not-pending": "not pending (admitted or gone)"}


def table(rows: Rows, stamp: str) -> str:
    from tabulate import tabulate

    if not rows:
        return f"{stamp}  {nothing_pending('any namespace')}\n"
    body = [[ns, f"{_kind(kind)}/{r[3]}", r[0], r[1], r[2]] for (ns, kind, _name), r in sorted(rows.items())]
    text: str = tabulate(body, headers=["NAMESPACE", "TARGET", "ROLE", "REASON", "DETAIL"], tablefmt="plain",
                         disable_numparse=True)
    return f"{stamp}\n" + text + "\n"


def line(stamp: str, change: str, key: tuple[str, str, str], row: Row | None) -> str:
    ns, kind, name = key
    what = f"{ns}/{_kind(kind)}/{row[3] if row is not None else name}"
    if row is None:
        return f"{stamp}  {what}  {WORDS[change]}"
    return f"{stamp}  {what}  {WORDS[change]}: {row[1]} ({row[0]}): {row[2]}"


def _kind(kind: str) -> str:
    """The TARGET's kind as the list shows it: md, wl, podgroup; a framework's as kubectl's KIND (lowercase)."""
    return KINDS.get(kind) or (kind.lower() if kind in OWNER_KINDS else kind)


def redraw(previous_lines: int, text: str) -> str:
    """On a terminal: back to the first line of the last table (ESC [ n F), each line cleared (ESC [ 2 K)
    before it is written, and the lines the last table had beyond this one cleared too."""
    from kubectl_pd.termsafe import csi  # marked as ours: the output edge escapes the cluster's

    lines = text.splitlines()
    up = csi(f"{previous_lines}F") if previous_lines else ""
    extra = max(0, previous_lines - len(lines))
    return up + "".join(f"{csi('2K')}{s}\n" for s in lines) + f"{csi('2K')}\n" * extra + \
        (csi(f"{extra}F") if extra else "")
