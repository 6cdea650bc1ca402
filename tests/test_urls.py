"""kubectl_pd/cluster/urls.py against urllib.parse, on hand-picked and on generated text."""

from __future__ import annotations

import urllib.parse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_pd.cluster import urls
from tests.conftest import live_diagnosis_loads


def outcome(fn):
    try:
        return "ok", fn()
    except ValueError as e:  # urlsplit's refusals: the same words
        return "raises", str(e)


def seen(parts) -> tuple:
    return (parts.scheme, parts.netloc, parts.path, parts.query, parts.fragment, parts.username, parts.password,
            parts.hostname, outcome(lambda: parts.port))


def same_split(url: str) -> None:
    theirs = outcome(lambda: seen(urllib.parse.urlsplit(url)))
    ours = outcome(lambda: seen(urls.split(url)))
    assert ours == theirs, url


HAND_PICKED = [
    "https://127.0.0.1:6443", "https://api.example.com", "https://API.Example.COM:443/k8s/clusters/c-1",
    "http://proxy:3128", "http://user:p%40ss@proxy.corp:8080/", "http://user@proxy", "http://:pw@h",
    "https://h:", "https://h:0", "https://h:65535", "https://h:65536", "https://h:-1", "https://h:+80",
    "https://h:8o", "https://h:1:2", "https://h/p?q=1#f", "https://h?x#y", "https://h#x?y", "//h:1/p",
    "h:1", "proxy.corp:3128", "1http://h", "HTTPS://H", "a+b-c.d://h", "a_b://h", "://h", "", "/", "?", "#",
    "https://[::1]:6443", "https://[fe80::1%eth0]:1", "https://[::1", "https://::1]", " https://h",
    "https://h\t:1", "https://h\n/", "https://é.example", "https://h%ZONE:1", "https://H%Zone",
    "https://a@b@c:1", "file:///etc/x", "mailto:x@y", "https:h", "https:", "https://", "http:///p",
]


@pytest.mark.parametrize("url", HAND_PICKED)
def test_split_hand_picked(url: str) -> None:
    same_split(url)


_URL_TEXT = st.text(alphabet=st.sampled_from(list("aZ09+-._~:/?#@%[] \t\né!$&'()*,;=") + ["\x00", "\x7f"]),
                    max_size=40)


@settings(max_examples=500, deadline=None)
@given(_URL_TEXT)
def test_split_generated_text(url: str) -> None:
    same_split(url)


_PART = st.text(alphabet="aB9-._~%:@", max_size=8)


@settings(max_examples=500, deadline=None)
@given(st.tuples(st.sampled_from(["https", "HTTP", "h2c+x", "1x", ""]), st.sampled_from(["://", ":", "//", ""]),
                 st.one_of(st.just(""), _PART.map(lambda u: u + "@")), _PART,
                 st.one_of(st.just(""), st.text(alphabet="0123456789ab+-", max_size=7).map(lambda p: ":" + p)),
                 st.sampled_from(["", "/", "/api/v1", "/a?b=c", "?x", "#f", "/p?q#f"])))
def test_split_generated_urls(parts: tuple[str, ...]) -> None:
    same_split("".join(parts))


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=20))
def test_quote_part(value: str) -> None:
    assert outcome(lambda: urls.quote_part(value)) == outcome(lambda: urllib.parse.quote(value, safe=""))


_VALUES = st.one_of(st.text(max_size=12), st.integers(), st.booleans(), st.binary(max_size=8), st.none())


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.one_of(st.text(max_size=8), st.binary(max_size=4)), _VALUES, max_size=4))
def test_urlencode(query: dict) -> None:
    assert urls.urlencode(query) == urllib.parse.urlencode(query)


def test_hand_picked_queries() -> None:
    for query in [{"limit": 500}, {"labelSelector": "kueue.x-k8s.io/queue-name=q,app!=x", "continue": "eyJ2Ijo+/="},
                  {"fieldSelector": "involvedObject.name=qwen pd"}, {"dryRun": "All"}, {}, {"é": "ü ~"}]:
        assert urls.urlencode(query) == urllib.parse.urlencode(query)
    assert urls.quote_part("team-a") == "team-a"
    assert urls.quote_part("a/b c") == urllib.parse.quote("a/b c", safe="")


def test_the_live_path_never_imports_urllib_parse(tmp_path) -> None:
    """A live diagnosis through TLS against the loopback server (tests/apiserver.py)."""
    mods = ("urllib.parse", "ipaddress")  # an editable install's import hook loads them first: forgotten
    loaded, requests = live_diagnosis_loads(tmp_path, mods, forget=mods)
    assert requests >= 1
    assert loaded == [False, False]
