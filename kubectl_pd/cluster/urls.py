"""The three `urllib.parse` functions the live path calls, without importing it on that path.

Importing `urllib.parse` imports `ipaddress` with it (about 10 M instructions under callgrind, 3% of a live
`why-pending`), for what every request does: quote a namespace and a name, encode a query, split the
server's URL. Here `quote_part` and `urlencode` are what `urllib.parse.quote(s, safe="")` and
`urlencode(dict)` compute (percent-encoding UTF-8 bytes is the whole rule); `split` reads the URLs a
kubeconfig holds, printable ASCII without brackets, and hands any other text to `urllib.parse.urlsplit`,
which is imported then. `tests/test_urls.py` holds each against `urllib.parse`, on hand-picked and on
generated text.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: Tab loads this module
if TYPE_CHECKING:
    from typing import Any
    from urllib.parse import SplitResult

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
_SCHEME = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-.")


def quote_part(value: str) -> str:
    """`urllib.parse.quote(value, safe="")`: one path segment."""
    return _quote(value.encode("utf-8"), b"")


def urlencode(query: dict[Any, Any]) -> str:
    """`urllib.parse.urlencode(query)` of a mapping (`doseq` False): `quote_plus` of `str()` of each key
    and value, bytes as they are."""
    return "&".join(f"{_plus(k)}={_plus(v)}" for k, v in query.items())


def _plus(value: Any) -> str:
    data = value if isinstance(value, bytes) else str(value).encode("utf-8")
    return _quote(data, b" ").replace(" ", "+")


def _quote(data: bytes, safe: bytes) -> str:
    if all(c in _UNRESERVED for c in data):
        return data.decode("ascii")
    return "".join(chr(c) if c in _UNRESERVED or c in safe else f"%{c:02X}" for c in data)


class Split:
    """What `urllib.parse.urlsplit` answers, for the URLs `split` reads itself."""

    __slots__ = ("scheme", "netloc", "path", "query", "fragment")

    def __init__(self, scheme: str, netloc: str, path: str, query: str, fragment: str) -> None:
        self.scheme, self.netloc, self.path, self.query, self.fragment = scheme, netloc, path, query, fragment

    @property
    def username(self) -> str | None:
        userinfo, at, _ = self.netloc.rpartition("@")
        return userinfo.partition(":")[0] if at else None

    @property
    def password(self) -> str | None:
        userinfo, at, _ = self.netloc.rpartition("@")
        _, colon, password = userinfo.partition(":")
        return password if at and colon else None

    @property
    def hostname(self) -> str | None:
        host = self.netloc.rpartition("@")[2].partition(":")[0]
        if not host:
            return None
        name, percent, zone = host.partition("%")  # a zone (`%eth0`) keeps its case
        return name.lower() + percent + zone

    @property
    def port(self) -> int | None:
        port = self.netloc.rpartition("@")[2].partition(":")[2]
        if not port:
            return None
        if not (port.isdigit() and port.isascii()):
            raise ValueError(f"Port could not be cast to integer value as {port!r}")
        number = int(port)
        if not 0 <= number <= 65535:
            raise ValueError("Port out of range 0-65535")
        return number


def split(url: str) -> Split | SplitResult:
    """`urllib.parse.urlsplit(url)`: read here when `url` is printable ASCII (no space, no control
    character: those are stripped or removed there first) and holds no `[` or `]` (an IPv6 literal,
    checked there with `ipaddress`); `urlsplit` itself for anything else."""
    if not (url.isascii() and url.isprintable()) or " " in url or "[" in url or "]" in url:
        from urllib.parse import urlsplit

        return urlsplit(url)
    scheme = ""
    colon = url.find(":")
    if colon > 0 and url[0].isalpha() and all(c in _SCHEME for c in url[:colon]):
        scheme, url = url[:colon].lower(), url[colon + 1:]
    netloc = ""
    if url[:2] == "//":
        end = min((i for i in (url.find(c, 2) for c in "/?#") if i >= 0), default=len(url))
        netloc, url = url[2:end], url[end:]
    url, _, fragment = url.partition("#")
    url, _, query = url.partition("?")
    return Split(scheme, netloc, url, query, fragment)
