"""kubectl_pd.records.dataclass against the standard library's, shape by shape.

Each shape is defined twice from one source text, once with each decorator, and every behaviour the
package can observe is compared: construction (positional, keyword, defaults, factories, errors),
equality, hashing, repr, frozenness, `dataclasses.fields`/`replace`/`asdict`/`is_dataclass`,
`__match_args__`. Construction errors are compared word for word.

Every comparison runs three times: with every instance through records' generic `__init__` (the one a
class uses before its `COMPILE_AFTER`-th instance), with every instance through the compiled one
(`COMPILE_AFTER` = 1), and switching from one to the other in the middle (`COMPILE_AFTER` = 3).
"""

from __future__ import annotations

import dataclasses
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_pd import records

SHAPES: dict[str, str] = {
    "frozen, required and defaults": """
@dataclass(frozen=True)
class C:
    a: int
    b: str = "x"
    c: tuple[int, ...] = ()
""",
    "frozen, factories and a field left out of compare and repr": """
@dataclass(frozen=True)
class C:
    a: int
    b: dict[str, int] = field(default_factory=dict)
    c: list[int] = field(default_factory=list, compare=False)
    d: str | None = field(default=None, repr=False)
""",
    "mutable, factories": """
@dataclass
class C:
    a: int = 0
    b: list[int] = field(default_factory=list)
""",
    "no fields": """
@dataclass(frozen=True)
class C:
    pass
""",
    "methods and properties kept": """
@dataclass(frozen=True)
class C:
    a: int
    b: int = 2

    @property
    def total(self) -> int:
        return self.a + self.b

    def __repr__(self) -> str:
        return "custom"
""",
    "explicit hash kept on a mutable class": """
@dataclass
class C:
    a: int

    def __hash__(self) -> int:
        return 7
""",
    "hash=False leaves a field out of the hash only": """
@dataclass(frozen=True)
class C:
    a: int
    b: int = field(default=0, hash=False)
""",
    "post_init goes to the standard library": """
@dataclass
class C:
    a: int
    b: int = 0

    def __post_init__(self) -> None:
        self.b = self.a * 2
""",
}

ARGS: list[tuple[tuple, dict]] = [((), {}), ((1,), {}), ((1, "y"), {}), ((), {"a": 3}), ((1,), {"b": {"k": 1}}),
                                  ((1, 2, 3, 4, 5), {}), ((1,), {"zzz": 1}), ((1,), {"a": 2})]


def define(source: str, decorator) -> type:
    env = {"dataclass": decorator, "field": records.field if decorator is records.dataclass else dataclasses.field,
           "__name__": __name__}
    exec(compile("from __future__ import annotations\n" + source, "<shape>", "exec"), env)  # noqa: S102
    return env["C"]


PATHS = {"generic": 10**9, "compiled": 1, "switching": 3}


@pytest.fixture(params=list(PATHS))
def init_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Which `__init__` the classes records defines in this test use (read when a class is defined)."""
    monkeypatch.setattr(records, "COMPILE_AFTER", PATHS[request.param])
    return request.param


def outcome(fn):
    try:
        return "ok", fn()
    except TypeError as e:  # binding the arguments: the words are Python's, the same either way
        return "raises", type(e).__name__, str(e)
    except Exception as e:  # the kind of error is part of the behaviour compared
        return "raises", type(e).__name__


def observe(cls: type) -> dict[str, object]:
    seen: dict[str, object] = {
        "fields": [(f.name, f.type, f.repr, f.compare, f.hash, f.default is dataclasses.MISSING,
                    f.default_factory is dataclasses.MISSING) for f in dataclasses.fields(cls)],
        "is_dataclass": dataclasses.is_dataclass(cls),
        "match_args": getattr(cls, "__match_args__", None),
        "hashable class": cls.__hash__ is not None,
    }
    for args, kwargs in ARGS:
        made = outcome(lambda a=args, k=kwargs: cls(*a, **k))
        key = f"{args}{kwargs}"
        seen[key] = made if made[0] == "raises" else ("ok", repr(made[1]))
        if made[0] != "ok":
            continue
        obj = made[1]
        twin = cls(*args, **kwargs)
        seen[key + " eq"] = (obj == twin, obj != twin, obj == object(), twin is not obj)
        seen[key + " hash"] = outcome(lambda o=obj, t=twin: hash(o) == hash(t))
        seen[key + " asdict"] = outcome(lambda o=obj: dataclasses.asdict(o))
        name = dataclasses.fields(cls)[0].name if dataclasses.fields(cls) else "a"
        seen[key + " setattr"] = outcome(lambda o=obj, n=name: setattr(o, n, 9))
        fresh = [cls(*args, **kwargs) for _ in range(3)]  # each check below spoils its own
        seen[key + " delattr"] = outcome(lambda o=fresh[0], n=name: delattr(o, n))
        seen[key + " new attr"] = outcome(lambda o=fresh[1]: setattr(o, "other", 1))
        if dataclasses.fields(cls):
            seen[key + " replace"] = outcome(lambda o=fresh[2], n=name: repr(dataclasses.replace(o, **{n: 5})))
    return seen


@pytest.mark.parametrize("shape", list(SHAPES))
def test_same_behaviour_as_the_standard_library(shape: str, init_path: str) -> None:
    ours = observe(define(SHAPES[shape], records.dataclass))
    theirs = observe(define(SHAPES[shape], dataclasses.dataclass))
    assert ours == theirs


def test_init_is_compiled_once_at_its_nth_instance_and_nothing_else_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the module: on Python 3.11 to 3.13 defining a class compiles nothing, nor do its
    first COMPILE_AFTER - 1 instances; the next one compiles `__init__`, later ones nothing more."""
    import builtins

    monkeypatch.setattr(records, "COMPILE_AFTER", 4)
    calls: list[str] = []
    real = compile

    def counting(source, filename, mode, *a, **k):
        calls.append(filename)
        return real(source, filename, mode, *a, **k)

    builtins.compile = counting
    try:
        cls = define(SHAPES["frozen, factories and a field left out of compare and repr"], records.dataclass)
        seen = [[c for c in calls if c != "<shape>"]]
        for i in range(6):
            cls(i, {"k": i})
            seen.append([c for c in calls if c != "<shape>"])
    finally:
        builtins.compile = real
    if records._HAND_BACK:  # the standard library's own, which compiles at definition
        assert all(s == seen[0] for s in seen)
    else:
        assert seen == [[]] * 4 + [["<dataclass C>"]] * 3


def test_the_default_threshold_compiles_only_classes_made_often() -> None:
    assert 16 <= records.COMPILE_AFTER <= 1024


def test_mutable_default_refused_like_the_standard_library() -> None:
    source = "@dataclass\nclass C:\n    a: list = []\n"
    assert outcome(lambda: define(source, records.dataclass)) == outcome(lambda: define(source, dataclasses.dataclass))
    assert outcome(lambda: define(source, records.dataclass))[0] == "raises"


def test_a_run_that_only_uses_the_classes_never_imports_dataclasses() -> None:
    """Tab loads the cluster layer's classes: importing `dataclasses` (and with it `inspect`) costs a
    tenth of a Tab press, so it happens only when something asks the standard library about a class."""
    import subprocess

    code = (
        "import sys\n"
        "from kubectl_pd.cluster import kinds, endpoint, pool\n"
        "from kubectl_pd.kueue import model\n"
        "from kubectl_pd.records import replace\n"
        "c = model.Condition('Admitted', 'True')\n"
        "r = replace(c, status='False')\n"
        "assert (r.status, r == c, hash(r) == hash(replace(r))) == ('False', False, True)\n"
        "assert repr(r).startswith(\"Condition(type='Admitted', status='False', reason=''\")\n"
        "loaded = 'dataclasses' in sys.modules\n"
        "try:  # the error is the standard library's own: raising it is the one time it is loaded\n"
        "    c.status = 'x'\n"
        "except Exception as e:\n"
        "    kind = type(e).__name__\n"
        "print(loaded, kind)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "FrozenInstanceError"]


def test_the_standard_library_reads_a_class_built_here() -> None:
    from kubectl_pd.kueue.model import Condition

    c = Condition("Admitted", "True", reason="r")
    assert dataclasses.is_dataclass(c) and [f.name for f in dataclasses.fields(Condition)] == [
        "type", "status", "reason", "message", "last_transition"]
    assert dataclasses.asdict(c)["reason"] == "r"
    assert dataclasses.replace(c, reason="s") == Condition("Admitted", "True", reason="s")
    assert Condition.__dataclass_params__.frozen is True


# -- generated shapes: the two decorators over class shapes Hypothesis writes ---------------------------

_ANNOTATIONS = ("int", "str | None", "tuple[int, ...]", "list[int]", "dict[str, int]", "object")
_DEFAULTS = ("0", "'x'", "None", "()", "(1, 2)", "True", "[]")  # `[]`: a mutable default, refused by both
_FACTORIES = ("list", "dict", "tuple")
_METHODS = {
    "repr": "    def __repr__(self) -> str:\n        return 'custom'\n",
    "eq": "    def __eq__(self, other: object) -> bool:\n        return True\n",
    "hash": "    def __hash__(self) -> int:\n        return 7\n",
    "hash None": "    __hash__ = None\n",
    "post_init": "    def __post_init__(self) -> None:\n        self.extra = 1\n",
    "property": "    @property\n    def first(self) -> object:\n        return 1\n",
}


@st.composite
def _field_line(draw: st.DrawFn, name: str) -> str:
    ann = draw(st.sampled_from(_ANNOTATIONS))
    kind = draw(st.sampled_from(("required", "default", "field default", "field factory", "field plain")))
    if kind == "required":
        return f"    {name}: {ann}\n"
    if kind == "default":
        return f"    {name}: {ann} = {draw(st.sampled_from(_DEFAULTS))}\n"
    args = []
    if kind == "field default":
        args.append(f"default={draw(st.sampled_from(_DEFAULTS))}")
    elif kind == "field factory":
        args.append(f"default_factory={draw(st.sampled_from(_FACTORIES))}")
    for flag, values in (("repr", ("True", "False")), ("compare", ("True", "False")),
                         ("hash", ("None", "True", "False"))):
        if draw(st.booleans()):
            args.append(f"{flag}={draw(st.sampled_from(values))}")
    return f"    {name}: {ann} = field({', '.join(args)})\n"


@st.composite
def class_shapes(draw: st.DrawFn) -> str:
    """The source of one decorated class: fields a.. in order (a required one after a defaulted one
    included: both refuse it), `frozen` or not, some of the methods a class may bring itself."""
    frozen = draw(st.booleans())
    names = "abcde"[:draw(st.integers(0, 5))]
    lines = [draw(_field_line(n)) for n in names]
    methods = draw(st.lists(st.sampled_from(sorted(_METHODS)), unique=True, max_size=3))
    body = "".join(lines) + "".join(_METHODS[m] for m in methods) or "    pass\n"
    decorator = "@dataclass(frozen=True)" if frozen else "@dataclass"
    return f"{decorator}\nclass C:\n{body}"


# init_path only sets a constant read when each class is defined: nothing to reset between examples
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=class_shapes())
def test_generated_shapes_behave_as_the_standard_library(source: str, init_path: str) -> None:
    ours = outcome(lambda: define(source, records.dataclass))
    theirs = outcome(lambda: define(source, dataclasses.dataclass))
    assert ours[0] == theirs[0], source
    if ours[0] == "raises":
        assert ours == theirs, source
    else:
        assert observe(ours[1]) == observe(theirs[1]), source
