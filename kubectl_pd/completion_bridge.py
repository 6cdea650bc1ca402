"""`kubectl_complete-pd`: kubectl (1.26+) runs it with the words typed after `kubectl pd`.

It answers in Cobra's `__complete` format through the hidden `kubectl pd __complete` command. Only
click, PyYAML and the command modules load on this path; the kubernetes client is imported solely
when a live candidate (a namespace, a ModelDeployment name) is asked for.
"""

from __future__ import annotations

import sys


def main() -> None:
    from kubectl_pd.cli import main as cli_main

    cli_main(["__complete", *sys.argv[1:]])
