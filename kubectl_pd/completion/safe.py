"""What a Tab may put on the user's command line or terminal: the one escaping of every completion path
(kubectl's `__complete` protocol through `kubectl_complete-pd`, the bridge's fast path, and the bash, zsh and fish
scripts of `kubectl pd completion`).

- A name a server lists must match Kubernetes' name syntax for its kind (a Namespace: an RFC 1123 label; any other
  object: an RFC 1123 subdomain), else it is no candidate: `qwen;touch PWNED;#` never reaches a shell.
- A candidate with a control character (a newline that would inject a Cobra ActiveHelp line, an ESC that would
  start an OSC 52 clipboard write) is no candidate; a description has its controls replaced by spaces.
- bash inserts what its script hands it verbatim: each candidate is quoted for it (`bash_word`), as
  `printf %q` quotes a printable word; zsh's `compadd` and fish quote what they insert themselves.

Loaded on a Tab press: nothing but builtins (no `re`, no `typing`).
"""

from __future__ import annotations

_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_LABEL_MAX = 63
_SUBDOMAIN_MAX = 253


def dns_label(name: str) -> bool:
    """RFC 1123 label, as the API server validates a Namespace's name (IsDNS1123Label)."""
    if not 0 < len(name) <= _LABEL_MAX or name[0] not in _LOWER or name[-1] not in _LOWER:
        return False
    return all(c in _LOWER or c == "-" for c in name)


def dns_subdomain(name: str) -> bool:
    """RFC 1123 subdomain (IsDNS1123Subdomain): the default name syntax of an object, a custom resource's too."""
    if not 0 < len(name) <= _SUBDOMAIN_MAX:
        return False
    return all(dns_label(part) for part in name.split("."))


def object_name(kind: str, name: str) -> bool:
    """Whether NAME is a name an API server could hold for KIND (a hostile or broken server's others: dropped)."""
    return dns_label(name) if kind == "Namespace" else dns_subdomain(name)


def _control(c: str) -> bool:
    o = ord(c)
    return o < 0x20 or 0x7F <= o <= 0x9F or c in "\u2028\u2029"


def clean(value: str) -> bool:
    """A candidate that may be offered at all: no control character anywhere."""
    return bool(value) and not any(_control(c) for c in value)


def description(text: str) -> str:
    """A description as one plain line: every control character (ESC, newline, tab) a space."""
    return " ".join("".join(" " if _control(c) else c for c in text).split())


_BASH_PLAIN = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def bash_word(value: str) -> str:
    """VALUE quoted as bash's `printf %q` quotes a printable word: each other character behind a backslash (a
    leading `~` too), so bash inserts it as one literal word."""
    out = "".join(c if c in _BASH_PLAIN else "\\" + c for c in value)
    return out


def cobra_line(value: str, help_text: str | None = None) -> str | None:
    """One line of Cobra's `__complete` answer (`value<TAB>description`), or None: not a candidate to offer."""
    if not clean(value) or value.startswith("_activeHelp_"):
        return None
    desc = description(help_text or "")
    return f"{value}\t{desc}" if desc else value
