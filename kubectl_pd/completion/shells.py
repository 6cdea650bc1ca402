"""The shells' side of `kubectl pd completion bash|zsh|fish`: click's completion classes with one escaping
(completion/safe.py). A candidate with a control character is never offered; a description is one plain line;
bash gets each candidate quoted (its script adds it to COMPREPLY as one quoted word, with no splitting or
globbing), zsh's `compadd` and fish quote what they insert themselves. `register` puts them in click's place for
the script printed and for the answer to a Tab (`_KUBECTL_PD_COMPLETE`)."""

from __future__ import annotations

from click.shell_completion import (
    BashComplete,
    CompletionItem,
    FishComplete,
    ShellComplete,
    ZshComplete,
    add_completion_class,
)

from kubectl_pd.completion.safe import bash_word, clean, description

_BASH = """\
%(complete_func)s() {
    local response type value

    response=$(env COMP_WORDS="${COMP_WORDS[*]}" COMP_CWORD=$COMP_CWORD %(complete_var)s=bash_complete "$1")

    while IFS=',' read -r type value; do
        if [[ $type == 'dir' ]]; then
            COMPREPLY=()
            compopt -o dirnames
        elif [[ $type == 'file' ]]; then
            COMPREPLY=()
            compopt -o default
        elif [[ $type == 'plain' ]]; then
            COMPREPLY+=("$value")
        fi
    done <<< "$response"

    return 0
}

%(complete_func)s_setup() {
    complete -o nosort -F %(complete_func)s %(prog_name)s
}

%(complete_func)s_setup;
"""


def _safe(items: list[CompletionItem]) -> list[CompletionItem]:
    """The items that may be offered, each description a plain line."""
    out = []
    for item in items:
        value = str(item.value)
        if item.type == "plain" and not clean(value):
            continue
        help_text = description(item.help) if item.help else None
        out.append(CompletionItem(value, type=item.type, help=help_text or None))
    return out


class _Safe(ShellComplete):
    def complete(self) -> str:
        args, incomplete = self.get_completion_args()
        return "\n".join(self.format_completion(i) for i in _safe(self.get_completions(args, incomplete)))


class Bash(_Safe, BashComplete):
    source_template = _BASH

    def format_completion(self, item: CompletionItem) -> str:
        return f"{item.type},{bash_word(str(item.value)) if item.type == 'plain' else item.value}"


class Zsh(_Safe, ZshComplete):
    pass


class Fish(_Safe, FishComplete):
    pass


def register() -> None:
    for name, cls in (("bash", Bash), ("zsh", Zsh), ("fish", Fish)):
        add_completion_class(cls, name)  # type: ignore[type-abstract]
