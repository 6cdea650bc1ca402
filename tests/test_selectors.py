import pytest

from kubectl_pd.cluster.selectors import parse_field_selector, parse_label_selector
from kubectl_pd.errors import InputError

LABELS = {"app": "pd", "tier": "gpu", "role": "decode"}


@pytest.mark.parametrize(
    ("selector", "match"),
    [
        ("", True), ("app=pd", True), ("app==pd", True), ("app!=pd", False), ("app=pd,tier=cpu", False),
        ("role in (prefill, decode)", True), ("role notin (prefill,decode)", False), ("tier", True),
        ("!tier", False), ("missing", False), ("!missing", True), ("app=pd,role in (decode),!x", True),
    ],
)
def test_label_selector(selector: str, match: bool) -> None:
    assert parse_label_selector(selector)(LABELS) is match


def test_label_selector_rejects_garbage() -> None:
    with pytest.raises(InputError):
        parse_label_selector("a b c")


def test_field_selector() -> None:
    ev = {"involvedObject": {"name": "p-0", "kind": "Pod"}, "metadata": {"namespace": "a"}}
    assert parse_field_selector("involvedObject.name=p-0,involvedObject.kind=Pod")(ev)
    assert not parse_field_selector("metadata.namespace!=a")(ev)
    assert not parse_field_selector("involvedObject.uid=x")(ev)
