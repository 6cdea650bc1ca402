"""Completion: the Cobra protocol rendering, `__complete` over the real command tree, live candidates,
and the committed shell scripts."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import click
import pytest

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.commands.completion import (
    DIRECTIVE_FILTER_DIRS,
    DIRECTIVE_NO_FILE_COMP,
    DIRECTIVE_NO_SPACE,
    SHELLS,
    Completion,
    candidates_for,
    render,
    split_words,
)
from kubectl_pd.completion.live import (
    DEFAULT_TIMEOUT,
    kube_contexts,
    matching,
    modeldeployment_names,
    namespaces,
    options_from_params,
    within,
)
from tests.apiserver import TOKEN
from tests.builders import model_deployment, namespace

ROOT = Path(__file__).parent.parent
COMPLETIONS = ROOT / "completions"


def values(stdout: str) -> list[str]:
    """Completion values of a `__complete` answer (the directive line dropped)."""
    lines = stdout.splitlines()
    assert lines and lines[-1].startswith(":"), stdout
    return [line.split("\t")[0] for line in lines[:-1]]


def directive(stdout: str) -> int:
    return int(stdout.splitlines()[-1][1:])


# -- the protocol, as pure functions ------------------------------------------------------------


def test_split_words_last_word_is_the_one_being_completed() -> None:
    assert split_words([]) == ([], "")
    assert split_words([""]) == ([], "")
    assert split_words(["why-pending", "-n", "ku"]) == (["why-pending", "-n"], "ku")


def test_render_values_descriptions_and_no_file_directive() -> None:
    lines = render([Completion("lint", help="Find ClusterQueues Kueue would refuse.\nMore text."),
                    Completion("create", help=None), Completion("lint", help="duplicate")])
    assert lines == ["lint\tFind ClusterQueues Kueue would refuse.", "create", f":{DIRECTIVE_NO_FILE_COMP}"]


def test_render_nothing_still_says_no_file_completion() -> None:
    assert render([]) == [":4"]


def test_render_tabs_and_newlines_cannot_break_the_format() -> None:
    lines = render([Completion("a\tb", help="x\ty\n z")])
    assert lines == [":4"]  # a value with a control character is never offered (completion/safe.py)
    assert render([Completion("ab", help="x\ty\n z")]) == ["ab\tx y", ":4"]  # its first line


def test_render_words_that_go_on_ask_for_no_space() -> None:
    assert render([Completion("name="), Completion("kind=")])[-1] == f":{DIRECTIVE_NO_FILE_COMP | DIRECTIVE_NO_SPACE}"
    assert render([Completion("name=p,")])[-1] == ":6"
    assert render([Completion("x", no_space=True)])[-1] == ":6"


def test_render_file_and_dir_items_hand_over_to_the_shell() -> None:
    assert render([Completion("", kind="file")]) == [":0"]
    assert render([Completion("", kind="dir")]) == [f":{DIRECTIVE_FILTER_DIRS}"]


# -- `kubectl pd __complete` over the real command tree ------------------------------------------


def test_complete_subcommand_prefix(cli: Callable) -> None:
    r = cli(["__complete", "wh"])
    assert r.exit_code == 0 and r.stderr == ""
    assert values(r.stdout) == ["why-pending"]
    assert directive(r.stdout) == 4


def test_complete_all_subcommands_with_descriptions_hidden_one_left_out(cli: Callable) -> None:
    r = cli(["__complete", ""])
    got = values(r.stdout)
    assert {"create", "why-pending", "lint", "completion"} <= set(got)
    assert "__complete" not in got
    assert any(line.startswith("completion\t") for line in r.stdout.splitlines())


def test_complete_flags_of_a_subcommand(cli: Callable) -> None:
    r = cli(["__complete", "why-pending", "--"])
    got = values(r.stdout)
    for flag in ("--kubeconfig", "--context", "--namespace", "--request-timeout", "--help"):
        assert flag in got
    assert all(v.startswith("--") for v in got)


def test_words_that_look_like_flags_are_completed_not_obeyed(cli: Callable) -> None:
    r = cli(["__complete", "--help"])
    assert r.exit_code == 0
    assert values(r.stdout) == ["--help"]
    assert "Usage:" not in r.stdout


def test_complete_completion_shells(cli: Callable) -> None:
    assert values(cli(["__complete", "completion", ""]).stdout) == list(SHELLS)
    assert values(cli(["__complete", "completion", "z"]).stdout) == ["zsh"]


def test_complete_output_values_from_the_choice(cli: Callable) -> None:
    got = values(cli(["__complete", "lint", "-o", ""]).stdout)
    assert {"json", "yaml"} <= set(got)
    # kubectl's templated forms complete too (issue 32), with their `=`
    assert values(cli(["__complete", "lint", "--output=j"]).stdout) == ["json", "junit", "jsonpath=", "jsonpath-file="]


def test_complete_role_kinds_from_the_parameter_type(cli: Callable) -> None:
    got = values(cli(["__complete", "create", "x", "--role", "name=p,kind="]).stdout)
    for kind in ("server", "prefill", "decode"):
        assert any(v == kind or v.endswith("kind=" + kind) for v in got), got


def test_path_parameters_fall_back_to_the_shell() -> None:
    @click.command()
    @click.option("-f", "--filename", type=click.Path(allow_dash=True))
    @click.option("--out-dir", type=click.Path(file_okay=False))
    def tool(filename: str, out_dir: str) -> None:
        """A command with path options."""

    assert render(candidates_for(["-f", "exa"], root=tool)) == [":0"]
    assert render(candidates_for(["--out-dir", ""], root=tool)) == [f":{DIRECTIVE_FILTER_DIRS}"]


# -- `kubectl pd completion SHELL` and the committed scripts -------------------------------------


@pytest.mark.parametrize("shell", SHELLS)
def test_completion_script_for_each_shell(cli: Callable, shell: str) -> None:
    r = cli(["completion", shell])
    assert r.exit_code == 0 and r.stderr == ""
    assert "_KUBECTL_PD_COMPLETE" in r.stdout and "kubectl-pd" in r.stdout


@pytest.mark.parametrize("shell", SHELLS)
def test_committed_completion_scripts_are_current(cli: Callable, shell: str) -> None:
    committed = (COMPLETIONS / f"kubectl-pd.{shell}").read_text()
    assert cli(["completion", shell]).stdout == committed, (
        f"completions/kubectl-pd.{shell} is stale: regenerate it with "
        f"`kubectl pd completion {shell} > completions/kubectl-pd.{shell}`"
    )


def test_completion_rejects_other_shells(cli: Callable) -> None:
    r = cli(["completion", "powershell"])
    assert r.exit_code == 2 and r.stderr.startswith("error: Invalid value for '{bash|zsh|fish}'")


def test_bridge_script_is_an_executable_sh_wrapper() -> None:
    bridge = COMPLETIONS / "kubectl_complete-pd"
    text = bridge.read_text()
    assert text.startswith("#!/bin/sh\n")
    assert 'exec kubectl-pd __complete "$@"' in text
    assert bridge.stat().st_mode & 0o111 == 0o111


# -- live candidates -----------------------------------------------------------------------------


def test_options_from_params_innermost_wins_and_timeout_defaults() -> None:
    opts = options_from_params([
        {"namespace": "inner", "kubeconfig": None, "request_timeout": None},
        {"namespace": "outer", "kubeconfig": "/k", "kube_context": "c", "request_timeout": 7.0},
    ])
    assert opts == ClusterOptions(kubeconfig="/k", context="c", namespace="inner", request_timeout=7.0)
    assert options_from_params([{}]).request_timeout == DEFAULT_TIMEOUT
    assert options_from_params([{"request_timeout": "500ms"}]).request_timeout == 0.5
    assert options_from_params([{"request_timeout": "soon"}]).request_timeout == DEFAULT_TIMEOUT


def test_matching_is_prefix_sorted_unique() -> None:
    assert matching(["kube-system", "default", "kube-public", "kube-system", ""], "kube") == [
        "kube-public", "kube-system"]


def test_within_gives_up_at_the_deadline_and_swallows_errors() -> None:
    t0 = time.monotonic()
    assert within(0.2, lambda: (time.sleep(3), ["late"])[1]) == []
    assert time.monotonic() - t0 < 1.5
    assert within(1, lambda: [][1]) == []
    assert within(1, lambda: ["a", "b"]) == ["a", "b"]


def test_namespace_completion_is_live_and_read_only(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver([namespace("default"), namespace("kube-system"), namespace("kube-public"), namespace("ml")])
    r = cli(["__complete", "why-pending", "-n", "kube"], env=env)
    assert values(r.stdout) == ["kube-public", "kube-system"]
    assert directive(r.stdout) == 4
    assert set(server.methods) == {"GET"}
    assert TOKEN not in r.stdout + r.stderr


def test_namespace_completion_honours_kubeconfig_flag(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver([namespace("team-a")])
    r = cli(["__complete", "lint", "--kubeconfig", env["KUBECONFIG"], "--namespace", ""],
            env={"KUBECONFIG": "/nonexistent"})
    assert values(r.stdout) == ["team-a"]


def test_namespace_completion_gives_up_within_request_timeout(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver([namespace("slow")], delay=4)
    t0 = time.monotonic()
    r = cli(["__complete", "why-pending", "--request-timeout", "500ms", "-n", ""], env=env)
    assert time.monotonic() - t0 < 2.5
    assert r.exit_code == 0 and r.stdout == ":4\n" and r.stderr == ""


def test_namespace_completion_is_empty_when_unreachable(cli: Callable, tmp_path: Path) -> None:
    kc = tmp_path / "kubeconfig"
    kc.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: x, cluster: {server: 'http://127.0.0.1:9'}}]\n"
        "users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: x, user: u}}]\n"
    )
    r = cli(["__complete", "why-pending", "-n", ""], env={"KUBECONFIG": str(kc)})
    assert r.exit_code == 0 and r.stdout == ":4\n" and r.stderr == ""


def test_namespace_completion_is_empty_when_forbidden(cli: Callable, apiserver: Callable) -> None:
    from tests.apiserver import Forbid

    server, env = apiserver([namespace("secret")], forbid=[Forbid("list", "namespaces")])
    r = cli(["__complete", "why-pending", "-n", ""], env=env)
    assert r.stdout == ":4\n" and r.stderr == ""


def test_namespace_completion_without_any_kubeconfig(cli: Callable, tmp_path: Path) -> None:
    r = cli(["__complete", "why-pending", "-n", ""],
            env={"KUBECONFIG": str(tmp_path / "missing"), "HOME": str(tmp_path)})
    assert r.stdout == ":4\n" and r.stderr == ""


def _ctx(**params: object) -> click.Context:
    ctx = click.Context(click.Command("why-pending"))
    ctx.params.update(params)
    return ctx


def test_modeldeployment_names_in_the_namespace(apiserver: Callable) -> None:
    server, env = apiserver([model_deployment("qwen-pd", "ml"), model_deployment("qwen-small", "ml"),
                             model_deployment("llama", "ml"), model_deployment("qwen-other", "other")])
    ctx = _ctx(kubeconfig=env["KUBECONFIG"], namespace="ml", request_timeout=None)
    assert [i.value for i in modeldeployment_names(ctx, None, "qwen")] == ["qwen-pd", "qwen-small"]
    assert set(server.methods) == {"GET"}


def test_modeldeployment_names_default_to_the_context_namespace(apiserver: Callable) -> None:
    server, env = apiserver([model_deployment("a", "ml"), model_deployment("b", "default")], namespace="ml")
    ctx = _ctx(kubeconfig=env["KUBECONFIG"])
    assert [i.value for i in modeldeployment_names(ctx, None, "")] == ["a"]


def test_modeldeployment_names_across_namespaces(apiserver: Callable) -> None:
    server, env = apiserver([model_deployment("a", "ml"), model_deployment("b", "default")])
    ctx = _ctx(kubeconfig=env["KUBECONFIG"], all_namespaces=True)
    assert [i.value for i in modeldeployment_names(ctx, None, "")] == ["a", "b"]


def test_modeldeployment_names_empty_when_the_crd_is_missing(apiserver: Callable) -> None:
    server, env = apiserver([], groups={"": ["v1"]})
    ctx = _ctx(kubeconfig=env["KUBECONFIG"], namespace="ml")
    assert modeldeployment_names(ctx, None, "") == []


def test_live_lookups_through_a_parent_context(apiserver: Callable) -> None:
    server, env = apiserver([namespace("x1"), namespace("y1")])
    root = click.Context(click.Group("kubectl-pd"))
    root.params.update(kubeconfig=env["KUBECONFIG"])
    child = click.Context(click.Command("lint"), parent=root)
    assert [i.value for i in namespaces(child, None, "x")] == ["x1"]


def test_kube_contexts_from_the_kubeconfig(tmp_path: Path) -> None:
    kc = tmp_path / "kubeconfig"
    kc.write_text("apiVersion: v1\nkind: Config\ncontexts: [{name: prod}, {name: dev}, {name: prod-eu}]\n")
    ctx = _ctx(kubeconfig=str(kc))
    assert [i.value for i in kube_contexts(ctx, None, "prod")] == ["prod", "prod-eu"]
    assert kube_contexts(_ctx(kubeconfig=str(tmp_path / "none")), None, "") == []
