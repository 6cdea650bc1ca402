"""The run memo's indexes (cluster/prefetch.PrefetchedSource) answer exactly what a scan of the listed objects
answers: a GET by name and namespace, a list by namespace and label selector, in list order.

The reference is the plain scan the memo did before it had indexes (`_select` over every object, the first
object with the name in the namespace); objects come with and without a namespace, names repeat across
namespaces, labels vary, and selectors are one-term equalities (indexed) or anything else (scanned).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_pd.cluster.prefetch import PrefetchedSource, _one_equality, _select
from kubectl_pd.cluster.source import name_of, namespace_of


class _Nothing:
    """The source behind the memo: every kind read here is prefetched, so it is never asked."""

    is_live = False

    def get(self, *a: Any, **kw: Any) -> Any:
        raise AssertionError("a prefetched kind went to the cluster")

    list = get


NAMES = st.sampled_from(["main", "a", "b"])
NAMESPACES = st.sampled_from([None, "team-a", "team-b"])
LABELS = st.dictionaries(st.sampled_from(["g", "app"]), st.sampled_from(["x", "y", ""]), max_size=2)
SELECTORS = st.sampled_from([None, "", "g=x", "g==y", "g=", "app=x", "g!=x", "g=x,app=y", "g in (x,y)", "!g", "g"])


@st.composite
def objects(draw: Any) -> list[dict[str, Any]]:
    out = []
    for _ in range(draw(st.integers(0, 8))):
        meta: dict[str, Any] = {"name": draw(NAMES), "labels": draw(LABELS)}
        ns = draw(NAMESPACES)
        if ns is not None:
            meta["namespace"] = ns
        out.append({"kind": "Pod", "metadata": meta})
    return out


def _first(objs: list[dict[str, Any]], name: str, namespace: str | None) -> dict[str, Any] | None:
    return next((o for o in objs if name_of(o) == name and (namespace is None or namespace_of(o) in (None, namespace))),
                None)


@settings(max_examples=400, deadline=None)
@given(objects(), st.lists(st.tuples(NAMES, NAMESPACES, SELECTORS), min_size=1, max_size=6))
def test_gets_and_lists_through_the_indexes_equal_a_scan(objs: list[dict[str, Any]],
                                                          asks: list[tuple[str, str | None, str | None]]) -> None:
    memo = PrefetchedSource(_Nothing(), {"Pod": objs})  # type: ignore[arg-type]
    for name, ns, selector in asks:  # several asks: the indexes are built by the first and reused
        assert memo.get("Pod", name, ns) is _first(objs, name, ns)
        got = memo.list("Pod", ns, label_selector=selector)
        assert [id(o) for o in got] == [id(o) for o in _select(objs, ns, selector, None)]


def test_one_equality_reads_only_a_single_key_value_term() -> None:
    table = [("g=x", ("g", "x")), ("g==x", ("g", "x")), ("g = x", ("g", "x")), ("g=", ("g", "")),
             ("g!=x", None), ("g=x,h=y", None), ("g in (x)", None), ("!g", None), ("g", None), ("", None),
             (None, None), ("g=x=y", None), ("=x", None)]
    for selector, want in table:
        assert _one_equality(selector) == want, selector
