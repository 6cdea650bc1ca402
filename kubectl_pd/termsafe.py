"""The edge every byte the tool prints passes: credentials redacted, terminal controls neutralised.

`install()` (cli.main) puts a `SafeStream` over sys.stdout and sys.stderr, so no printer has to
remember: every message, warning, note, debug traceback and JSON document goes through `clean`.

- Redaction: the credentials this process holds (`remember`: bearer tokens, basic-auth passwords and
  their base64, exec-plugin tokens and argument values, proxy credentials) are replaced by "<redacted>"
  wherever a server, a proxy or an error echoes them.
- Terminal controls (CVE-2021-25743, which kubectl answers with cli-runtime's EscapeTerminal): ESC is
  shown as "^[" and CR as "\\r" as kubectl shows them, other C0 controls (not tab or newline) in
  caret notation ("^G"; DEL, which no terminal acts on, is left as JSON leaves it),
  C1 controls (U+0080 to U+009F but NEL: 8-bit CSI, OSC) as "\\u009b".
  None of these appear raw in our JSON (the encoder escapes C0; "\\u009b" is JSON's own escape of C1, so
  the document stays valid and decodes to the same data) or YAML (PyYAML quotes and escapes them).
- The only sequences left intact are our own, on a stream that is a terminal with colour allowed
  (`use_color`): SGR colour (`ESC [ digits m`) and the in-place redraw of create --wait and --watch
  (`ESC [ n F`, `ESC [ 2 K`). Ours are told from the cluster's by a mark no input can carry: the printers
  make them with `sgr` and `csi`, which put this process's random nonce (private-use characters) after
  `ESC [`; the edge turns a marked sequence into the plain one (colour on) or drops it (colour off). The same
  bytes coming from the cluster (a fake green "ADMITTED", conceal `ESC [ 8 m`, erase-line `ESC [ 2 K`) carry
  no nonce and are escaped like any other control (issue 42, M8).
"""

from __future__ import annotations

import os
import re
import sys

from kubectl_pd import memo
from kubectl_pd.lazyre import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

COLOR_MODES = ("auto", "always", "never")


def set_color_mode(mode: str) -> None:
    """--color of the current run (auto, always, never; anything else is auto): a setting of the run
    (kubectl_pd/memo.py), so it ends with it. Outside a run there is nothing to set: the mode is auto."""
    scope = memo.current()
    if scope is not None:
        scope.color = mode if mode in COLOR_MODES else "auto"


def color_mode() -> str:
    """The current run's --color (auto outside a run)."""
    scope = memo.current()
    return "auto" if scope is None else scope.color


def color_on(stream: Any) -> bool:
    """Whether our colour (and in-place redraw) goes to `stream`: --color=always: yes, even with NO_COLOR set
    (an explicit flag wins over the environment); never: no; auto: a terminal and NO_COLOR unset or empty
    (https://no-color.org)."""
    mode = color_mode()
    if mode != "auto":
        return mode == "always"
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


SECRETS: set[str] = set()  # credentials of this process: never in a message, whoever echoes them

# A credential shorter than this is replaced only where it stands alone (not inside a longer run of the
# characters tokens are made of): a one-letter test token must not turn every "etcd" into "e<redacted>cd".
_SHORT_SECRET = 8
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/-")
_MIN_SECRET = 3  # "" or one or two characters would redact ordinary words: such a value is not kept

_CONTROLS = lazy("[\x00-\x08\x0b-\x1f\x80-\x84\x86-\x9f]")


def _below(n: int) -> int:
    """A uniform draw in [0, n) from os.urandom (what secrets.randbelow does, without importing secrets, hmac
    and hashlib on every run)."""
    while True:
        v = int.from_bytes(os.urandom(2), "big")
        if v < 0x10000 - 0x10000 % n:
            return v % n


# this process's mark of its own control sequences: four private-use characters, drawn at random at start
_NONCE = "".join(chr(0xE000 + _below(0x1900)) for _ in range(4))
_MARKED = "\x1b[" + _NONCE
_OURS = lazy(re.escape(_MARKED) + r"((?:[0-9;]*m|[0-9]*F|2K))")


def csi(tail: str) -> str:
    """Our own control sequence `ESC [ tail` (`3F`: three lines up, `2K`: erase the line), marked as ours: only
    the output edge makes it a real one, and only on a terminal with colour on."""
    return _MARKED + tail


def sgr(code: str | int) -> str:
    """Our own colour `ESC [ code m` (`0` resets), marked as ours (see `csi`)."""
    return _MARKED + f"{code}m"


def as_terminal(text: str) -> str:
    """`text` with our marked sequences made plain and nothing else changed: what a colour terminal is sent
    (for tests and callers that write to a terminal themselves)."""
    return _OURS.sub(lambda m: "\x1b[" + m.group(1), text) if _NONCE in text else text


def remember(*secrets: str | None) -> None:
    """Credentials to redact from every output from now on (falsy and very short values are ignored)."""
    for s in secrets:
        if s and len(s) >= _MIN_SECRET:
            SECRETS.add(s)


def redact(text: str) -> str:
    """`text` with every credential this process holds replaced (a server or proxy may echo headers)."""
    if not SECRETS:
        return text
    for secret in sorted(SECRETS, key=len, reverse=True):
        if not secret or secret not in text:
            continue
        if len(secret) >= _SHORT_SECRET:
            text = text.replace(secret, "<redacted>")
            continue
        out, at = [], 0
        while (hit := text.find(secret, at)) >= 0:
            end = hit + len(secret)
            alone = ((hit == 0 or text[hit - 1] not in _TOKEN_CHARS)
                     and (end == len(text) or text[end] not in _TOKEN_CHARS))
            out.append(text[at:hit] + ("<redacted>" if alone else secret))
            at = end
        text = "".join(out) + text[at:]
    return text


def _shown(m: re.Match[str]) -> str:
    c = m.group()
    o = ord(c)
    if c == "\x1b":
        return "^["
    if c == "\r":
        return "\\r"
    if o < 0x20:
        return "^" + chr(o + 64)
    return f"\\u{o:04x}"


def neutralise(text: str) -> str:
    """Terminal controls in `text` shown as visible characters, never interpreted (see the module)."""
    if _CONTROLS.search(text) is None:
        return text
    return _CONTROLS.sub(_shown, text)


def _neutralise_but_ours(text: str) -> str:
    if _CONTROLS.search(text) is None:
        return text
    out, at = [], 0
    for m in _OURS.finditer(text):
        out.append(neutralise(text[at:m.start()]))
        out.append("\x1b[" + m.group(1))
        at = m.end()
    out.append(neutralise(text[at:]))
    return "".join(out)


def clean(text: str, *, ours: bool = False) -> str:
    """Redacted and neutralised; `ours`: keep our own (marked) colour and redraw sequences, else drop them."""
    text = redact(text)
    if ours:
        return _neutralise_but_ours(text)
    if _NONCE in text:
        text = _OURS.sub("", text)
    return neutralise(text)


class SafeStream:
    """A text stream that writes `clean(text)` to the stream it wraps (no `buffer`: click then writes
    text here rather than bytes past it)."""

    def __init__(self, inner: IO[str]) -> None:
        self._inner = inner

    def _keep_ours(self) -> bool:
        """color_on(the stream), decided once per run and --color mode (the run's memo: the stream outlives
        runs, an answer does not)."""
        decided = memo.table("termsafe.ours")
        if decided is None:
            return color_on(self._inner)
        key = (id(self._inner), color_mode())
        answer = decided.get(key)
        if answer is None:
            answer = decided[key] = color_on(self._inner)
        return bool(answer)

    def write(self, text: str | bytes) -> int:
        if not isinstance(text, str):
            # click writes bytes here when it finds no binary stream (completion answers): taken as UTF-8.
            # click's own probe, write(b""), must fail, or it would take this for a binary stream
            if not text or not isinstance(text, bytes | bytearray):
                raise TypeError("write() argument must be str")
            self.write(bytes(text).decode("utf-8", "replace"))
            return len(text)
        self._inner.write(clean(text, ours=self._keep_ours()))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._inner.flush()

    def isatty(self) -> bool:
        return self._inner.isatty()

    def fileno(self) -> int:
        return self._inner.fileno()

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False

    @property
    def closed(self) -> bool:
        return bool(self._inner.closed)

    @property
    def encoding(self) -> str:
        return getattr(self._inner, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str:
        return getattr(self._inner, "errors", None) or "strict"

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self._inner, name)


def install() -> None:
    """sys.stdout and sys.stderr through SafeStream (once)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, SafeStream):
            setattr(sys, name, SafeStream(stream))
