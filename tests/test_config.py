import os
from pathlib import Path

import pytest
import yaml

from kubectl_pd.cluster.config import ClusterOptions, default_namespace, parse_duration, read_kubeconfig
from kubectl_pd.errors import InputError, PdError


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("5s", 5), ("30", 30), ("1m30s", 90), ("500ms", 0.5), ("1h", 3600), ("0", 0), ("0s", 0), ("", None),
     ("2.5s", 2.5)],
)
def test_durations(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["5x", "s", "-1s", "1m junk", "five", "999999999999h"])
def test_bad_durations(bad: str) -> None:
    with pytest.raises(InputError, match="--request-timeout"):
        parse_duration(bad)


def _kc(path: Path, ctx: str, ns: str | None = None, current: bool = True) -> Path:
    c = {"cluster": "c-" + ctx, "user": "u"}
    if ns:
        c["namespace"] = ns
    doc = {"apiVersion": "v1", "kind": "Config", "contexts": [{"name": ctx, "context": c}],
           "clusters": [{"name": "c-" + ctx, "cluster": {"server": "https://127.0.0.1:1"}}],
           "users": [{"name": "u", "user": {"token": "secret"}}]}
    if current:
        doc["current-context"] = ctx
    path.write_text(yaml.safe_dump(doc))
    return path


def test_kubeconfig_env_with_several_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = _kc(tmp_path / "a", "first", "team-a")
    b = _kc(tmp_path / "b", "second", "team-b", current=False)
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(a), str(tmp_path / "missing"), str(b)]))
    merged = read_kubeconfig(ClusterOptions())
    assert [c["name"] for c in merged["contexts"]] == ["first", "second"]
    assert default_namespace(ClusterOptions()) == "team-a"
    assert default_namespace(ClusterOptions(context="second")) == "team-b"
    assert default_namespace(ClusterOptions(namespace="x", context="second")) == "x"


def test_namespace_defaults_to_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(_kc(tmp_path / "a", "nons")))
    assert default_namespace(ClusterOptions()) == "default"
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    assert default_namespace(ClusterOptions()) == "default"
    with pytest.raises(PdError, match="no kubeconfig found"):
        read_kubeconfig(ClusterOptions())


def test_explicit_kubeconfig_must_exist(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_kubeconfig(ClusterOptions(kubeconfig=str(tmp_path / "nope")))
    bad = tmp_path / "bad"
    bad.write_text("contexts: [unclosed\n")
    with pytest.raises(InputError, match="cannot be read as YAML"):
        read_kubeconfig(ClusterOptions(kubeconfig=str(bad)))


# -- typed fields, read as kubectl reads them (clientcmd/api/v1 through sigs.k8s.io/yaml) -----------------

from kubectl_pd.cluster import kcschema  # noqa: E402
from kubectl_pd.cluster.config import decode, first_document  # noqa: E402
from kubectl_pd.cluster.endpoint import escape_header_key, impersonation_headers  # noqa: E402
from kubectl_pd.commands.options import normalize_bool_flags  # noqa: E402

CLUSTER_AT = "clusters[0].cluster.insecure-skip-tls-verify"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("true", None), ("false", None), ("y", None), ("N", None), ("off", None), ("Yes", None), ("~", None),
        ('"false"', (CLUSTER_AT, "a boolean", "a string")),
        ("'no'", (CLUSTER_AT, "a boolean", "a string")),
        ("1", (CLUSTER_AT, "a boolean", "a number")),
        ("[true]", (CLUSTER_AT, "a boolean", "a list")),
    ],
)
def test_booleans_as_kubectl_reads_them(value: str, problem: tuple[str, str, str] | None) -> None:
    doc = first_document(f"clusters:\n- name: c\n  cluster:\n    insecure-skip-tls-verify: {value}\n")
    assert kcschema.check(doc) == problem


@pytest.mark.parametrize(
    ("user", "problem"),
    [
        ("token: abc", None),
        ("token: 2024-01-01", None),  # a date is a string to kubectl's YAML reader
        ("token: 12345", ("users[0].user.token", "a string", "a number")),
        ("token: yes", ("users[0].user.token", "a string", "a boolean")),
        ("as-groups: [a, 1]", ("users[0].user.as-groups[1]", "a string", "a number")),
        ("as-groups: a", ("users[0].user.as-groups", "a list", "a string")),
        ("as-user-extra: {k: v}", ("users[0].user.as-user-extra.k", "a list", "a string")),
        ("client-key-data: '!!'", ("users[0].user.client-key-data", "base64 data", "text that is not valid base64")),
        ('client-key-data: "YWJj\\nZA=="', None),  # Go's base64 skips line breaks
        ("client-key-data: 'YWJj\n  ZA=='", ("users[0].user.client-key-data", "base64 data",
                                              "text that is not valid base64")),  # folded: a space
        ("exec: {args: [1]}", ("users[0].user.exec.args[0]", "a string", "a number")),
        ("exec: {provideClusterInfo: 'true'}", ("users[0].user.exec.provideClusterInfo", "a boolean", "a string")),
        ("auth-provider: {config: {a: 1}}", ("users[0].user.auth-provider.config.a", "a string", "a number")),
        ("unknown: 1", None),  # unknown fields are ignored, as by kubectl
        ("Token: 1", None),  # field names are case-sensitive
    ],
)
def test_user_fields_as_kubectl_reads_them(user: str, problem: tuple[str, str, str] | None) -> None:
    assert kcschema.check(first_document(f"users:\n- name: u\n  user:\n    {user}\n")) == problem


def test_names_must_be_strings_and_unique_per_file() -> None:
    assert kcschema.check(first_document("users:\n- name: 5\n")) == ("users[0].name", "a string", "a number")
    assert kcschema.duplicate_name(first_document("contexts:\n- name: a\n- name: b\n- name: a\n")) == ("contexts", "a")
    assert kcschema.duplicate_name(first_document("contexts:\n- name: a\nusers:\n- name: a\n")) is None


def test_refusals_name_the_file_and_field(tmp_path: Path) -> None:
    kc = tmp_path / "kc"
    kc.write_text('clusters:\n- name: c\n  cluster:\n    insecure-skip-tls-verify: "false"\n')
    with pytest.raises(InputError) as e:
        read_kubeconfig(ClusterOptions(kubeconfig=str(kc)))
    assert e.value.exit_code == 2 and CLUSTER_AT in e.value.message


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16-le", "utf-16-be"])
def test_encodings_kubectl_reads(encoding: str) -> None:
    text = "current-context: прод\n"
    raw = text.encode(encoding)
    raw = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}.get(encoding, b"") + raw
    assert first_document(decode(raw)) == {"current-context": "прод"}


def test_only_the_first_document_counts() -> None:
    assert first_document("a: 1\n---\nb: [broken\n") == {"a": 1}
    assert first_document("") is None


def test_an_empty_current_context_sets_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = tmp_path / "first"
    first.write_text('current-context: ""\n')
    second = _kc(tmp_path / "second", "real", "team-b")
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(first), str(second)]))
    assert read_kubeconfig(ClusterOptions())["current-context"] == "real"
    assert default_namespace(ClusterOptions()) == "team-b"


def test_server_flag_needs_no_kubeconfig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    assert read_kubeconfig(ClusterOptions(server="https://x"))["contexts"] == []


def test_subcommand_flags_win_over_the_ones_before_it() -> None:
    before = ClusterOptions(as_user="a", as_groups=("x",), insecure=True, request_timeout=5.0)
    after = ClusterOptions(as_groups=("y",), request_timeout=0.0).merged(before)
    assert (after.as_user, after.as_groups, after.insecure, after.request_timeout) == ("a", ("y",), True, 0.0)


@pytest.mark.parametrize(
    ("args", "out"),
    [
        (["--insecure-skip-tls-verify=true", "x"], ["--insecure-skip-tls-verify", "x"]),
        (["--insecure-skip-tls-verify=1"], ["--insecure-skip-tls-verify"]),
        (["--insecure-skip-tls-verify=False", "x"], ["x"]),
        (["--", "--insecure-skip-tls-verify=no"], ["--", "--insecure-skip-tls-verify=no"]),
        (["--as=a"], ["--as=a"]),
    ],
)
def test_boolean_flags_take_go_values(args: list[str], out: list[str]) -> None:
    assert normalize_bool_flags(args) == out


def test_a_boolean_flag_refuses_other_values() -> None:
    import click

    with pytest.raises(click.BadParameter):
        normalize_bool_flags(["--insecure-skip-tls-verify=no"])  # strconv.ParseBool refuses `no`


@pytest.mark.parametrize(
    ("key", "escaped"),
    [("scopes", "scopes"), ("example.org/team", "example.org%2Fteam"), ("a b", "a%20b"), ("100%", "100%25"),
     ("é", "%C3%A9"), ("x-y_z~", "x-y_z~")],
)
def test_extra_keys_are_escaped_as_client_go_escapes_them(key: str, escaped: str) -> None:
    assert escape_header_key(key) == escaped


def test_impersonation_headers() -> None:
    assert impersonation_headers({"as-groups": ["a"]}) == {}  # nothing without a user (refused before this)
    assert impersonation_headers({"as": "alice", "as-uid": "7", "as-groups": ["dev", "ops"],
                                  "as-user-extra": {"scopes": ["r", "w"]}}) == {
        "Impersonate-User": ["alice"], "Impersonate-Uid": ["7"], "Impersonate-Group": ["dev", "ops"],
        "Impersonate-Extra-scopes": ["r", "w"]}
