"""Every `say(...)` in the package names a sentence pending/words.py has, with exactly its parameters:
each keyword one the sentence takes, each parameter without a default given. Read from the source (every
call with a literal id), so a sentence renamed or a parameter dropped fails here, not in a user's run."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from kubectl_pd.pending import words

ROOT = Path(__file__).resolve().parent.parent / "kubectl_pd"


def _calls() -> list[tuple[str, int, str, frozenset[str] | None]]:
    """(file, line, id, keywords; None when some are passed as **mapping) of every say("id", ...)."""
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "say"):
                continue
            if not node.args or not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, str):
                continue
            names = [k.arg for k in node.keywords]
            kws = None if None in names else frozenset(n for n in names if n is not None)
            out.append((str(path.relative_to(ROOT)), node.lineno, node.args[0].value, kws))
    return out


CALLS = _calls()


def test_there_are_calls() -> None:
    assert len(CALLS) > 100


@pytest.mark.parametrize(("where", "line", "id_", "kws"), CALLS, ids=[f"{c[0]}:{c[1]}" for c in CALLS])
def test_say_names_a_sentence_with_its_parameters(where: str, line: int, id_: str, kws: frozenset[str] | None) -> None:
    assert id_ in words.SENTENCES, f"{where}:{line}: no sentence {id_!r}"
    params = inspect.signature(words.SENTENCES[id_]).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params) or kws is None:
        return  # the sentence takes any keyword, or the call passes a mapping: nothing to compare by name
    taken = {p.name for p in params}
    required = {p.name for p in params if p.default is p.empty}
    assert kws <= taken, f"{where}:{line}: {id_} takes no {sorted(kws - taken)}"
    assert required <= kws, f"{where}:{line}: {id_} needs {sorted(required - kws)}"


def test_the_sentence_ids_are_the_printers() -> None:
    """say()'s `SentenceId` (a Literal: mypy checks every call's id) lists exactly the sentences words.py has."""
    from typing import get_args

    from kubectl_pd.pending.say import SentenceId

    assert set(get_args(SentenceId)) == set(words.SENTENCES)
