"""`kubectl_complete-pd`: kubectl (1.26+) runs it with the words typed so far."""

from __future__ import annotations

import sys


def main() -> None:
    from kubectl_pd.cli import main as cli_main

    cli_main(["__complete", *sys.argv[1:]])
