"""What a live run imports (issue 38, speed): modules every run loads stay off logging and secrets.

clientauth is loaded for every client certificate (PrivateFiles) and termsafe by every run; logging (with
traceback, textwrap) and secrets (with hmac, hashlib) cost a run several milliseconds and serve only an
auth-provider user and one random draw. A fresh interpreter reports what importing them loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
import kubectl_pd.cluster.clientauth, kubectl_pd.termsafe, kubectl_pd.cluster.http, kubectl_pd.commands.cli
print(json.dumps(sorted(m for m in ("logging", "secrets", "hmac", "hashlib") if m in sys.modules)))
"""


def test_clientauth_and_termsafe_import_neither_logging_nor_secrets() -> None:
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == []


def test_the_nonce_is_four_private_use_characters_and_differs_between_runs() -> None:
    code = "from kubectl_pd import termsafe; print(termsafe._NONCE.encode('unicode_escape').decode())"
    got = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout.strip()
           for _ in range(3)}
    assert len(got) == 3
    for text in got:
        nonce = text.encode().decode("unicode_escape")
        assert len(nonce) == 4 and all(0xE000 <= ord(c) < 0xE000 + 0x1900 for c in nonce)


def test_the_draw_is_in_range() -> None:
    from kubectl_pd.termsafe import _below

    assert {_below(3) for _ in range(300)} == {0, 1, 2}
    assert all(0 <= _below(0x1900) < 0x1900 for _ in range(300))
