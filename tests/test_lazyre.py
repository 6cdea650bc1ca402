"""kubectl_pd.lazyre against `re`, over generated patterns and texts.

A lazy pattern must answer every call as `re.compile(...)` of the same arguments would (an invalid
pattern raising the same error, at first use), and its `prefix` must be sound: wherever the pattern
matches, the text there starts with the prefix (kueue/messages.py skips a pattern, uncompiled, on that).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_pd.kueue import messages
from kubectl_pd.lazyre import Lazy, lazy, literal_prefix

_ATOMS = ("a", "b", "c", " ", ",", "5", r"\.", r"\d", r"\|", r"\(", ".", "[ab]", "[)]", "[(]", "[|]", "[]a]",
          "[^a]", r"[\]|]", "{", "}")
_QUANTIFIERS = ("", "", "", "*", "+", "?", "{2}", "{1,2}", "*?", "+?")
_TEXT = st.text(alphabet="abc ,.|()[]5{}", max_size=12)


def _pieces(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    group = st.tuples(st.sampled_from(("(", "(?:")), inner).map(lambda t: f"{t[0]}{t[1]})")
    alternation = st.tuples(inner, inner).map(lambda t: f"{t[0]}|{t[1]}")
    return st.one_of(group, alternation, st.lists(inner, min_size=1, max_size=4).map("".join))


_QUANTIFIED = st.tuples(st.sampled_from(_ATOMS), st.sampled_from(_QUANTIFIERS)).map("".join)
PATTERNS = st.tuples(st.sampled_from(("", "^")), st.recursive(_QUANTIFIED, _pieces, max_leaves=8),
                     st.sampled_from(("", "$"))).map("".join)
FLAGS = st.sampled_from((0, re.DOTALL, re.IGNORECASE, re.MULTILINE))


def _answer(call):  # noqa: ANN001, ANN202 - any call on a pattern
    try:
        value = call()
    except re.error as e:
        return "re.error", e.msg
    if isinstance(value, re.Match):
        return value.span(), value.groups()
    return value


@settings(max_examples=400, deadline=None)
@given(PATTERNS, FLAGS, _TEXT, st.integers(0, 4))
def test_same_answers_as_re(pattern: str, flags: int, text: str, pos: int) -> None:
    ours, theirs = lazy(pattern, flags), None
    try:
        theirs = re.compile(pattern, flags)
    except re.error as e:
        assert _answer(lambda: ours.match(text)) == ("re.error", e.msg)
        return
    for name in ("match", "search", "fullmatch"):
        assert _answer(lambda n=name: getattr(ours, n)(text, pos)) == _answer(lambda n=name: getattr(theirs, n)(
            text, pos)), (name, pattern)
    assert ours.findall(text) == theirs.findall(text)
    assert ours.sub("x", text) == theirs.sub("x", text)
    assert (ours.pattern, ours.flags, ours.groups) == (theirs.pattern, theirs.flags, theirs.groups)


@settings(max_examples=600, deadline=None)
@given(PATTERNS, st.sampled_from((0, re.DOTALL)), _TEXT)
def test_prefix_is_where_every_match_starts(pattern: str, flags: int, text: str) -> None:
    try:
        compiled = re.compile(pattern, flags)
    except re.error:
        return
    prefix = literal_prefix((pattern, flags))
    assert pattern.lstrip("^").startswith(prefix)
    for pos in range(len(text) + 1):
        if compiled.match(text, pos):
            assert text.startswith(prefix, pos), (pattern, text, pos, prefix)


def test_prefix_cases() -> None:
    cases = {
        ("insufficient quota for (?P<res>x)",): "insufficient quota for ",
        ("^ClusterQueue (?P<s>\\S+) is stopped$",): "ClusterQueue ",
        ("ab|cd",): "",  # either branch
        ("ab[)]|cd",): "",  # a class holding `)` does not close a group
        ("ab[|]c",): "ab",  # a `|` in a class is a character
        ("a(b|c)d",): "a",
        ("abc*",): "ab",  # the last literal repeated (or absent)
        ("abc+",): "abc",
        ("abc", re.IGNORECASE): "",  # a flag other than DOTALL: unsure
        ("(?i)abc",): "",
        (b"abc",): "",  # bytes
    }
    assert {args: literal_prefix(args) for args in cases} == cases


def test_nothing_compiles_before_first_use() -> None:
    bad = Lazy("(unclosed")  # an invalid pattern: the error comes at first use, as re's would at compile
    assert bad._pattern is None
    try:
        bad.match("x")
    except re.error as e:
        assert e.msg == "missing ), unterminated subpattern"
    else:
        raise AssertionError("no error")


def test_the_message_tables_prefixes_are_sound() -> None:
    """Every pattern kueue/messages.py skips by prefix, over the reasons and messages it is tested on."""
    tables = (messages._REASONS, messages._WHOLE, messages._CQ_PARTS, messages._COMPOSE)
    for table in tables:
        for _, pat in table:
            args = pat._args  # type: ignore[attr-defined]
            assert literal_prefix(args) == pat.prefix  # type: ignore[attr-defined]
            assert str(args[0]).lstrip("^").startswith(pat.prefix)  # type: ignore[attr-defined]
