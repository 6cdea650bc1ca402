"""kubectl_pd.cluster.blockyaml against PyYAML: the same value, or UNSUPPORTED (then PyYAML reads it).

Never a different value, and never a value where PyYAML refuses the text. And the kubeconfigs real tools
write (kubectl, the loopback server's, cloud CLIs' exec entries) take the fast path.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_pd.cluster import blockyaml
from kubectl_pd.cluster.config import ClusterOptions, first_document, read_kubeconfig

KUBECTL_WRITES = """\
apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENDQVRlZ0F3SUJBZ0lVWUdiSEVmNDA4
    server: https://127.0.0.1:6443
    proxy-url: http://proxy.example:3128
  name: kind-kind
- cluster:
    insecure-skip-tls-verify: true
    server: https://10.0.0.1
  name: lab
contexts:
- context:
    cluster: kind-kind
    namespace: team-a
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ==
- name: eks
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - us-west-2
      - eks
      - get-token
      - --cluster-name
      - prod
      command: aws
      env:
      - name: AWS_PROFILE
        value: "prod"
      interactiveMode: IfAvailable
      provideClusterInfo: false
"""

EDGES: list[str] = [
    "", "# only a comment\n", "---\n", "---\na: 1\n", "a: 1\n---\nb: 2\n", "a: 01\n", "a: 0x1f\n", "a: 1_000\n",
    "a: 1.5\n", "a: .inf\n", "a: 2001-12-14\n", "a: 1:30\n", "a: yes\n",
    "a: y\n", "a: N\n", "a: 'n'\n", "n: 1\n", "a: Off\n", "a: ~\n", "a:\n", "a: null\n",
    "a: '1'\n", 'a: "yes"\n', "a: 'it''s'\n", 'a: "tab\\there"\n', 'a: "\\u00e9"\n', 'a: "\\x41"\n', "a: [1, 2]\n",
    "a: {b: 1}\n", "a: {}\n", "a: []\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: |\n  text\n", "a: >\n  text\n",
    "a: b\n  c\n", "a: b # comment\n", "a: b#c\n", "a: 'x' # c\n", "a: 'x'#c\n", "- a\n- b\n", "-\n  a: 1\n",
    "- - a\n", "a:\n- 1\n- -x\n- --y\n- +z\n- -1\n", "a:\n  - 1\n  - 2\nb: 3\n", "a:\n- b: 1\n  c: 2\n- d\n",
    "a: b: c\n", "a:b\n", "- a:b\n", "? a\n: b\n", "a: 1\na: 2\n", "<<: {}\n", "'a b': 1\n", '"a": 1\n',
    "1: a\n", "true: a\n", "a:\n\tb: 1\n", "a: b\r\nc: d\r\n", "a: \x85b\n", "\ufeffa: 1\n", "a: 'multi\n  line'\n",
    "a: \"unterminated\n", "a:\n  b:\n    c:\n      d: e\n  f: g\n", "  a: 1\n b: 2\n", "a: 1\n  b: 2\n",
    "a:\n  - b\n  c: d\n", "%YAML 1.1\n---\na: 1\n", "a: -\n", "a: ':'\n", "a: @x\n", "a: `x\n", "a: %x\n",
    "key with spaces: v\n", "a: value with: colon\n", "a: trailing:\n", "a: http://x:80/p?q=1#f\n",
    # plain scalars that start like numbers (go-yaml v2's rules, goyaml.scalar): tokens, octal, floats, dates
    "token: 5ad369becf92ff5d47fa22e47a038aee871453faa5214bdb\n", "a: 0o17\n", "a: 012\n", "a: 0b101\n",
    "a: 5e3\n", "a: 1e\n", "a: -0x1F\n", "a: +1_0\n", "a: 1.\n", "a: .5\n", "a: -.inf\n", "a: .nan\n",
    "a: 08\n", "a: 99999999999999999999\n", "a: 1-2\n", "a: 3.14.15\n", "a: 2026-12-03T09:00:00Z\n",
    "a: 1:30:00\n", "a: .\n", "a: -1\n", "- 0x10\n- 7a\n",
]


def pyyaml(text: str) -> tuple[str, object]:
    """PyYAML set up as kubectl's YAML reader (go-yaml v2: y/n booleans, dates as strings, first document)."""
    try:
        return "ok", first_document(text)
    except yaml.YAMLError:
        return "error", None


def agrees(text: str) -> bool:
    """Our answer is PyYAML's value, or UNSUPPORTED; never a value where PyYAML has another or an error."""
    ours = blockyaml.load(text)
    if ours is blockyaml.UNSUPPORTED:
        return True
    kind, theirs = pyyaml(text)
    return kind == "ok" and ours == theirs and type(ours) is type(theirs)


def test_what_kubectl_writes_takes_the_fast_path() -> None:
    assert blockyaml.load(KUBECTL_WRITES) == yaml.safe_load(KUBECTL_WRITES)


def test_the_loopback_servers_kubeconfig_takes_the_fast_path(tmp_path: Path) -> None:
    from tests.apiserver import FakeApiServer

    server = FakeApiServer(objects=[]).start()
    try:
        text = server.write_kubeconfig(tmp_path / "kubeconfig", namespace="team-a").read_text()
    finally:
        server.stop()
    assert blockyaml.load(text) == yaml.safe_load(text)


PYYAML_WRITES = """\
apiVersion: v1
kind: Config
current-context: admin
clusters:
- name: real
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJiakNDQVJXZ0F3SUJBZ0lVWVpk
users:
- name: admin
  user:
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
- name: token
  user:
    token: 5ad369becf92ff5d47fa22e47a038aee871453faa5214bdb
- name: octal
  user:
    token: '0123'
contexts:
- name: admin
  context:
    cluster: real
    user: admin
    namespace: default
"""


def test_what_pyyaml_writes_with_a_hex_token_takes_the_fast_path() -> None:
    """scripts/real-cluster's kubeconfig (PyYAML's safe_dump, block style): a token user whose hex token starts
    with a digit used to send the whole file to PyYAML (about 130 ms a run on the real plane)."""
    ours = blockyaml.load(PYYAML_WRITES)
    assert ours is not blockyaml.UNSUPPORTED
    assert ours == first_document(PYYAML_WRITES)
    assert ours["users"][1]["user"]["token"] == "5ad369becf92ff5d47fa22e47a038aee871453faa5214bdb"
    data = {"users": [{"name": "t", "user": {"token": tok}} for tok in ("5ad3", "0123", "1e5", "0x1f", "12")]}
    text = yaml.safe_dump(data, default_flow_style=False)  # PyYAML quotes what YAML 1.1 would read as numbers
    ours = blockyaml.load(text)
    assert ours is not blockyaml.UNSUPPORTED and ours == first_document(text)
    assert ours["users"][2]["user"]["token"] == 100000.0  # `1e5` unquoted: a float to go-yaml v2 (kubectl)


@pytest.mark.parametrize(("text", "value"), [
    ("a: 5ad369be\n", "5ad369be"), ("a: 012\n", 10), ("a: 0o17\n", 15), ("a: 0b101\n", 5), ("a: 5e3\n", 5000.0),
    ("a: 08\n", 8.0), ("a: 1:30\n", "1:30"), ("a: 2001-12-14\n", "2001-12-14"), ("a: 1_000\n", 1000),
    ("a: -.inf\n", float("-inf")), ("a: 1.5\n", 1.5),
])
def test_number_like_scalars_read_as_kubectl_reads_them(text: str, value: object) -> None:
    ours = blockyaml.load(text)
    assert ours == {"a": value} == first_document(text)
    assert type(ours["a"]) is type(value)


def test_edges_agree_with_pyyaml() -> None:
    disagree = [t for t in EDGES if not agrees(t)]
    assert disagree == []


def test_edges_pyyaml_refuses_are_never_read() -> None:
    refused = [t for t in EDGES if pyyaml(t)[0] == "error"]
    assert refused  # the table holds such texts
    assert [t for t in refused if blockyaml.load(t) is not blockyaml.UNSUPPORTED] == []


def test_read_kubeconfig_gives_the_same_with_either_reader(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_text(KUBECTL_WRITES)
    flow = tmp_path / "flow"  # the same kubeconfig in flow style: PyYAML's path
    flow.write_text(yaml.safe_dump(yaml.safe_load(KUBECTL_WRITES), default_flow_style=True))
    assert blockyaml.load(flow.read_text()) is blockyaml.UNSUPPORTED
    a = read_kubeconfig(ClusterOptions(kubeconfig=str(plain)))
    b = read_kubeconfig(ClusterOptions(kubeconfig=str(flow)))
    assert {k: v for k, v in a.items() if k != "_origins"} == {k: v for k, v in b.items() if k != "_origins"}


# -- generated documents ------------------------------------------------------------------------------

_WORDS = st.sampled_from([
    "a", "name", "server", "https://h:6443", "yes", "no", "on", "Off", "null", "~", "0", "01", "7", "-3", "+4",
    "1.5", ".inf", "0x1f", "1_0", "2020-01-01", "y", "Y", "n", "N", "5ad369be", "0o17", "012", "08", "5e3",
    "-0b1", "+.5", "1e", "4a:b",
    "1:30", "--flag", "-x", "x y", "a:b", "a: b", "#c", "a #c", "'",
    '"', "''", "it's", "é", "-", "?", ":", "{}", "[]", "[x]", "&a", "*a", "!t", "|", ">", "@", "`", "%", "=", "<<",
    "true", "True", "FALSE", "", " lead", "trail ", "x\\y", "\\u00e9", "\\t",
])
_KEYS = st.sampled_from(["a", "name", "cluster", "user", "args", "env", "x-y", "k8s.io/x", "yes", "1", "-k", "k k",
                         "k:", "'q'", '"d"', "#", "<<", "null"])


def _scalar_text(word: str, style: str) -> str:
    if style == "single":
        return "'" + word.replace("'", "''") + "'"
    if style == "double":
        return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return word


@st.composite
def documents(draw: st.DrawFn, depth: int = 0) -> str:
    """Block YAML text built line by line, in the shapes kubeconfigs take and many they do not."""
    indent = " " * draw(st.sampled_from([0, 0, 2, 4])) if depth == 0 else ""
    lines: list[str] = []

    def value(level: int, pad: str) -> list[str]:
        kind = draw(st.sampled_from(["scalar", "scalar", "map", "seq"] if level < 3 else ["scalar"]))
        if kind == "scalar":
            return [" " + _scalar_text(draw(_WORDS), draw(st.sampled_from(["plain", "plain", "single", "double"])))]
        if kind == "map":
            out = [""]
            for _ in range(draw(st.integers(1, 3))):
                out.append(pad + "  " + draw(_KEYS) + ":" + "".join(value(level + 1, pad + "  ")))
            return ["\n".join(out)]
        seq_pad = pad + draw(st.sampled_from(["", "  "]))
        out = [""]
        for _ in range(draw(st.integers(1, 3))):
            if draw(st.booleans()):
                out.append(seq_pad + "- " + _scalar_text(draw(_WORDS), draw(st.sampled_from(["plain", "single"]))))
            else:
                out.append(seq_pad + "- " + draw(_KEYS) + ":" + "".join(value(level + 1, seq_pad + "  ")))
        return ["\n".join(out)]

    for _ in range(draw(st.integers(1, 4))):
        lines.append(indent + draw(_KEYS) + ":" + "".join(value(0, indent)))
    text = "\n".join(lines) + "\n"
    if draw(st.booleans()):  # a comment, a blank line or a stray indentation somewhere
        at = draw(st.integers(0, text.count("\n")))
        parts = text.split("\n")
        parts.insert(at, draw(st.sampled_from(["# c", "", "   ", "  # c", " x: 1", "---"])))
        text = "\n".join(parts)
    return text


@settings(max_examples=300, deadline=None)
@given(documents())
def test_generated_documents_agree_with_pyyaml(text: str) -> None:
    assert agrees(text), text


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["apiVersion", "kind", "clusters", "users", "current-context"]),
                       st.recursive(st.one_of(st.text(alphabet="abz-./:0189 ", max_size=12), st.booleans(),
                                              st.none(), st.integers(-5, 500)),
                                    lambda inner: st.lists(inner, max_size=3)
                                    | st.dictionaries(st.text(alphabet="abz-", min_size=1, max_size=6), inner,
                                                      max_size=3),
                                    max_leaves=8), max_size=5))
def test_what_pyyaml_itself_writes_in_block_style(data: dict) -> None:
    text = yaml.safe_dump(data, default_flow_style=False)
    assert agrees(text), text
