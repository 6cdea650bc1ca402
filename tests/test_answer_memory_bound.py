"""Issue 42, N7: one bad answer was bounded at 512 MiB but cost about twice that, and more once parsed: the wire
copied its buffer into `bytes` (a body with a Content-Length, one huge chunk) or joined its pieces (chunked,
gzip), `_describe` stripped a copy, and JSON decoded the whole body to text at up to four bytes a character
(120 MiB of ASCII with one emoji: a 480 MiB str, its parsed string as much again). Now the wire hands over the
one buffer it read into, a body that is not a JSON object is never decoded when large, its text is counted
before it is decoded and refused past the bound, and an answer is parsed once. Peak RSS of the real process
(VmHWM, tests/test_bounded_reads._measured) against the loopback server, at a 64 MiB bound."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubectl_pd.cluster import answer
from tests.apiserver import FakeApiServer, Fault
from tests.test_bounded_reads import CQ, CQ_LIST, MiB, _measured

BOUND = 64 * MiB
UNDER = BOUND - 4 * MiB
SMILE = "\U0001f600".encode()
SHAPES = {  # name: (the fault, how many times the bound the run may cost over a run with a small answer)
    "one-chunk-under-the-bound": (Fault(CQ_LIST, body=b"x" * UNDER, endless=True), 1.3),
    "endless-chunked": (Fault(CQ_LIST, body=b" " * MiB, endless=True), 1.3),
    "gzip-bomb": (Fault(CQ_LIST, body=gzip.compress(b" " * (2 * BOUND), 9), headers={"Content-Encoding": "gzip"}),
                  1.3),
    "gzip-under-the-bound": (Fault(CQ_LIST, body=gzip.compress(b" " * UNDER, 9),
                                   headers={"Content-Encoding": "gzip"}), 1.3),
    "html-under-the-bound": (Fault(CQ_LIST, body=b"<html>" + b"x" * UNDER, content_type="text/html"), 1.3),
    "json-string": (Fault(CQ_LIST, body=b'"' + b"a" * UNDER + b'"'), 1.3),
    "json-string-one-emoji": (Fault(CQ_LIST, body=b'"' + b"a" * UNDER + SMILE + b'"'), 1.3),
    "object-one-emoji": (Fault(CQ_LIST, body=b'{"a": "' + b"a" * UNDER + SMILE + b'"}'), 1.3),
    "object-one-string": (Fault(CQ_LIST, body=b'{"a": "' + b"a" * UNDER + b'"}'), 3.3),  # body, text, value
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> int:
    """The peak of the same run with a small, good answer: the interpreter and the modules."""
    s = FakeApiServer(objects=[CQ]).start()
    try:
        kc = s.write_kubeconfig(tmp_path_factory.mktemp("base") / "kc")
        code, err, _, peak = _measured(kc, ["lint", "--request-timeout", "60s"],
                                       {"KUBECTL_PD_MAX_RESPONSE_SIZE": "64Mi"})
        assert code in (0, 1) and "error:" not in err, err
        return peak
    finally:
        s.stop()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[FakeApiServer, Path]]:
    s = FakeApiServer(objects=[CQ]).start()
    yield s, s.write_kubeconfig(tmp_path / "kc")
    s.stop()


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_one_bad_answer_costs_about_its_bound_once(server: tuple[FakeApiServer, Path], base: int, shape: str) -> None:
    s, kc = server
    fault, times = SHAPES[shape]
    s.faults.append(fault)
    code, err, seconds, peak = _measured(kc, ["lint", "--request-timeout", "60s"],
                                         {"KUBECTL_PD_MAX_RESPONSE_SIZE": "64Mi"})
    lines = [x for x in err.splitlines() if not x.startswith("warning: ")]
    assert code == 1 and len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    assert seconds < 60
    assert peak - base < times * BOUND, f"{(peak - base) / MiB:.0f} MiB over the base for a {BOUND // MiB} MiB bound"
    if shape == "object-one-emoji":
        assert "4 bytes a character" in lines[0] and "64Mi" in lines[0] and "KUBECTL_PD_MAX_RESPONSE_SIZE" in lines[0]


# ------------------------------------------------------------------------------------ the pure part, as a table
@pytest.mark.parametrize(("body", "start", "size"), [
    (b"", 0, 0), (b"  \r\n", 4, 0), (b"{}", 0, 2), (b" \n{} \n", 2, 2), (b"\t<html> ", 1, 6),
    (b"x" + b" " * 5000, 0, 5001 - 4096),  # trailing blanks counted off the last 4 KiB only
])
def test_first_and_stripped_size(body: bytes, start: int, size: int) -> None:
    assert answer.first(body) == start
    assert answer.stripped_size(body, start) == size


@pytest.mark.parametrize(("text", "width"), [
    ("plain", 1), ("café", 1), ("Ā", 2), ("日本", 2), ("a\U0001f600", 4), ("é\U0001f600日", 4),
])
def test_text_size_is_what_python_would_hold(text: str, width: int) -> None:
    body = bytearray(text.encode())
    assert answer.text_size(body) == (len(text), width)


@pytest.mark.parametrize(("body", "doc", "ok"), [
    (b"", None, False), (b"   ", None, False), (b"null", None, True), (b'{"a": 1}', {"a": 1}, True),
    (b'{"a": ', None, False), (b"[1, 2]", [1, 2], True), (b'"s"', "s", True), (b"\xff{", None, False),
    (b"[" + b"1," * answer.SMALL + b"1]", None, False),  # large and not an object: never decoded
])
def test_parse(body: bytes, doc: object, ok: bool) -> None:
    assert answer.parse(bytearray(body), 1 << 30) == (doc, ok)


def test_parse_refuses_text_past_the_bound_before_decoding() -> None:
    body = bytearray(b'{"a": "' + b"a" * 1000 + SMILE + b'"}')
    with pytest.raises(answer.TextTooLarge) as e:
        answer.parse(body, 4 * 1000)
    assert (e.value.chars, e.value.width) == (1010, 4)
    assert answer.parse(body, 4 * 1010)[1]  # at the bound: read
