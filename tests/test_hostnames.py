"""cluster/wire.idna_free against the IDNA codec that `socket` and `ssl` apply to a str host."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_pd.cluster.wire import idna_free
from tests.conftest import live_diagnosis_loads

_LABELS = st.one_of(st.text(alphabet="abcXYZ019-_", max_size=70), st.sampled_from(["", "ü", "xn--bcher-kva"]))


def codec(host: str) -> tuple[str, object]:
    try:
        return "bytes", host.encode("idna")
    except UnicodeError as e:
        return "refused", type(e).__name__


@settings(max_examples=500, deadline=None)
@given(st.lists(_LABELS, max_size=5).map(".".join))
def test_bytes_only_where_the_codec_gives_the_same_bytes(host: str) -> None:
    ours = idna_free(host)
    if isinstance(ours, bytes):
        assert codec(host) == ("bytes", ours)
    else:  # left to the codec: it refuses it, or the name is not ASCII
        assert ours == host
        assert codec(host)[0] == "refused" or not host.isascii()


def test_hand_picked_names() -> None:
    assert idna_free("127.0.0.1") == b"127.0.0.1"
    assert idna_free("api.example.com.") == b"api.example.com."
    assert idna_free("") == b""
    assert idna_free("a..b") == "a..b"
    assert idna_free("x" * 64 + ".io") == "x" * 64 + ".io"
    assert idna_free("bücher.example") == "bücher.example"
    assert idna_free("::1") == b"::1"


def test_a_live_diagnosis_never_loads_the_codec(tmp_path) -> None:
    """Through TLS against the loopback server (tests/apiserver.py), the path a live diagnosis takes."""
    loaded, _requests = live_diagnosis_loads(tmp_path, ("encodings.idna", "unicodedata"))
    assert loaded == [False, False]
