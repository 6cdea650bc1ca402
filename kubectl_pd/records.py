"""`dataclass` that compiles only `__init__`, and only for a class made often: start-up time.

The standard library compiles a dataclass's `__init__`, `__repr__`, `__eq__`, `__hash__` and, when frozen,
`__setattr__` and `__delattr__` with one `compile` each, and importing `dataclasses` imports `inspect`. A
live `why-pending` defines some sixty dataclasses before its first request; counted under callgrind, doing
it this way took out about a quarter of all the instructions the command ran (docs/benchmarks.md), and a
Tab press, which never needs `inspect` (with `ast`, `dis`, `tokenize`), no longer imports it. Here only
`__init__` is compiled, once per class and only when the class has been instantiated often (below); the
other methods are closures over the field names. The standard library's `dataclasses` is imported only when
something asks it about a class.

The classes stay dataclasses to the standard library: reading `__dataclass_fields__` builds its `Field`s,
so `dataclasses.fields`, `replace`, `asdict` and `is_dataclass` work as usual. Only what this package
uses is handled here (`@dataclass`, `@dataclass(frozen=True)`, `field(default=, default_factory=, repr=,
compare=, hash=)`); anything else (a base dataclass, `__post_init__`, `ClassVar`/`InitVar`/`KW_ONLY`
annotations, a required field after a defaulted one, a mutable default) is given to the standard library
unchanged. A class's first instances go through a generic `__init__` over its field list, and only a
class made often enough (COMPILE_AFTER below) has its own compiled. Python 3.13 compiles a class's methods
in one `exec`, but it still imports `dataclasses` and `inspect` and compiles at definition: measured with
bench/bench_records.py, this path stays the faster there too, so it is used on 3.11 to 3.13. On 3.14
and later, where class annotations are evaluated lazily (PEP 649/749) and this module has not been
tested, every class goes to the standard library. `tests/test_records.py` holds the two side by side,
on hand-written and on generated class shapes, through the generic and through the compiled `__init__`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from operator import attrgetter

TYPE_CHECKING = False  # not typing's: a Tab press never imports typing (about 15 ms, bench/bench_live.py)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

__all__ = ["dataclass", "field", "replace"]

# What a type checker reads: the standard library's decorator, so mypy's dataclass plugin types the
# classes (their `__init__`, fields, frozenness). What runs is `_dataclass`/`_field` below (the end of
# this file binds them); tests/test_records.py holds the two side by side.


_HAND_BACK = sys.version_info >= (3, 14)  # not tested there: the standard library's dataclass for every class
# A class's `__init__` is compiled at its COMPILE_AFTER-th instance; the ones before go through a generic
# `__init__` over its field list. Measured with bench/bench_records.py (one `compile` about 50 us, an instance
# about 1 us more through the generic one than through the compiled one), the compile pays for itself after
# some 50 instances, so a class is never made more than about twice as expensive as the better of the two
# choices would have: a live diagnosis makes most of its some sixty classes a few times each and compiles
# one or two, `why-pending -A` makes some of them tens of thousands of times.
COMPILE_AFTER = 64
_NOT_PLAIN = ("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar", "KW_ONLY", "dataclasses.KW_ONLY")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # ours; the standard library's own sentinel is used in the Fields it is given


class _Factory:
    """Marks an argument left to its default_factory (the standard library uses the same kind of sentinel)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


class Spec:
    """What `field(...)` says about one field, until the standard library needs a `Field` of it."""

    __slots__ = ("default", "default_factory", "repr", "hash", "compare", "type")

    def __init__(self, default: Any, default_factory: Any, repr: bool, hash: bool | None, compare: bool) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.default, self.default_factory = default, default_factory
        self.repr, self.hash, self.compare = repr, hash, compare
        self.type: Any = None


def _field(*, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True,  # noqa: A002
          hash: bool | None = None, compare: bool = True) -> Any:  # noqa: A002
    """`dataclasses.field`, for the parameters this package uses."""
    return Spec(default, default_factory, repr, hash, compare)


def replace(obj: T, /, **changes: Any) -> T:
    """`dataclasses.replace`: a copy with some fields changed, through `__init__`."""
    specs = type(obj).__dict__.get("_records_specs")
    if specs is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    unknown = changes.keys() - specs.keys()
    if unknown:
        raise TypeError(f"{type(obj).__qualname__}.__init__() got an unexpected keyword argument {min(unknown)!r}")
    return type(obj)(**{n: changes[n] if n in changes else getattr(obj, n) for n in specs})


def _dataclass(cls: type[T] | None = None, /, *, frozen: bool = False) -> Any:
    """`dataclasses.dataclass(cls)` or `dataclasses.dataclass(frozen=True)(cls)`."""
    if cls is None:
        return lambda c: _make(c, frozen)
    return _make(cls, frozen)


def _make(cls: type[T], frozen: bool) -> type[T]:
    specs = None if _HAND_BACK else _plain_specs(cls)
    if specs is None:
        return _standard(cls, frozen)
    for name, f in specs.items():  # what the standard library does with class attributes
        if f.default is MISSING:
            if name in cls.__dict__:
                delattr(cls, name)
        else:
            setattr(cls, name, f.default)
    cls._records_specs = specs  # type: ignore[attr-defined]
    cls.__dataclass_fields__ = _OnFirstRead("__dataclass_fields__", _stdlib_fields)  # type: ignore[attr-defined]
    cls.__dataclass_params__ = _OnFirstRead("__dataclass_params__", _stdlib_params)  # type: ignore[attr-defined]
    setattr(cls, "__match_args__", tuple(specs))  # noqa: B010  # a type checker takes it for read-only
    _add_methods(cls, specs, frozen)
    return cls


def _standard(cls: type[T], frozen: bool) -> type[T]:
    """The standard library's dataclass, with our `field()` specs turned into its own."""
    import dataclasses

    for name, value in list(cls.__dict__.items()):
        if isinstance(value, Spec):
            setattr(cls, name, dataclasses.field(**_field_args(value)))
    return dataclasses.dataclass(frozen=frozen)(cls)


def _plain_specs(cls: type) -> dict[str, Spec] | None:
    """The class's fields, or None when the class is not of the plain shape."""
    d = cls.__dict__
    if "__post_init__" in d or any(hasattr(b, "__dataclass_fields__") for b in cls.__mro__[1:]):
        return None
    stdlib = sys.modules.get("dataclasses")
    specs: dict[str, Spec] = {}
    defaulted = False
    for name, ann in d.get("__annotations__", {}).items():
        if not isinstance(ann, str) or ann.startswith(_NOT_PLAIN):
            return None
        value = d.get(name, MISSING)
        if stdlib is not None and isinstance(value, stdlib.Field):
            return None  # a standard library field(): its own dataclass reads it
        spec = value if isinstance(value, Spec) else Spec(value, MISSING, True, None, True)
        if spec.default is not MISSING and spec.default.__class__.__hash__ is None:
            return None  # a mutable default: the standard library refuses it with its own error
        required = spec.default is MISSING and spec.default_factory is MISSING
        if required and defaulted:
            return None  # a required field after a defaulted one: refused there, at definition
        defaulted = defaulted or not required
        spec.type = ann
        specs[name] = spec
    return specs


class _OnFirstRead:
    """A class attribute computed the first time it is read, then stored on the class in its place."""

    def __init__(self, name: str, build: Callable[[type], Any]) -> None:
        self.name, self.build = name, build

    def __get__(self, obj: Any, owner: type) -> Any:
        value = self.build(owner)
        setattr(owner, self.name, value)
        return value


def _field_args(spec: Spec) -> dict[str, Any]:
    args: dict[str, Any] = {"repr": spec.repr, "hash": spec.hash, "compare": spec.compare}
    if spec.default is not MISSING:
        args["default"] = spec.default
    if spec.default_factory is not MISSING:
        args["default_factory"] = spec.default_factory
    return args


def _stdlib_fields(cls: type) -> dict[str, Any]:
    import dataclasses

    out: dict[str, Any] = {}
    for name, spec in cls._records_specs.items():  # type: ignore[attr-defined]
        f = dataclasses.field(**_field_args(spec))
        f.name = name
        f.type = spec.type
        f._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
        f.kw_only = False  # type: ignore[attr-defined]
        out[name] = f
    return out


def _stdlib_params(cls: type) -> Any:
    import dataclasses

    make = dataclasses._DataclassParams  # type: ignore[attr-defined]
    frozen = "__setattr__" in cls.__dict__ and getattr(cls.__setattr__, "_records_frozen", False)
    common = {"init": True, "repr": True, "eq": True, "order": False, "unsafe_hash": False, "frozen": frozen}
    try:
        return make(**common)  # Python 3.11
    except TypeError:  # Python 3.12
        return make(**common, match_args=True, kw_only=False, slots=False, weakref_slot=False)


def _frozen_error(message: str) -> Exception:
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(message)


def _add_methods(cls: type[Any], fields: dict[str, Spec], frozen: bool) -> None:
    """The methods the standard library would write. Only `__init__` runs often enough to be worth
    compiling, and it is compiled when the class is first instantiated (a run that never makes a class
    never pays for it); the others are closures over the field names."""
    d = cls.__dict__
    names = tuple(fields)
    made: dict[str, Any] = {}
    if "__init__" not in d:
        made["__init__"] = _first_init(cls, fields, frozen)
    if "__repr__" not in d:
        shown = tuple(n for n in names if fields[n].repr)

        def __repr__(self: Any) -> str:
            inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in shown)
            return f"{self.__class__.__qualname__}({inner})"

        made["__repr__"] = __repr__
    if "__eq__" not in d:
        key = _getter(tuple(n for n in names if fields[n].compare))

        def __eq__(self: Any, other: Any) -> Any:
            if other.__class__ is self.__class__:
                return key(self) == key(other)
            return NotImplemented

        made["__eq__"] = __eq__
    class_hash = d.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in d))
    if frozen:
        if not explicit_hash:
            hkey = _getter(tuple(n for n in names if (fields[n].compare if fields[n].hash is None else fields[n].hash)))

            def __hash__(self: Any) -> int:
                return hash(hkey(self))

            made["__hash__"] = __hash__
        for name in ("__setattr__", "__delattr__"):
            if name in d:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        protected = frozenset(names)

        def __setattr__(self: Any, name: str, value: Any) -> None:
            if type(self) is cls or name in protected:
                raise _frozen_error(f"cannot assign to field {name!r}")
            super(cls, self).__setattr__(name, value)

        def __delattr__(self: Any, name: str) -> None:
            if type(self) is cls or name in protected:
                raise _frozen_error(f"cannot delete field {name!r}")
            super(cls, self).__delattr__(name)

        __setattr__._records_frozen = True  # type: ignore[attr-defined]  # read by _stdlib_params
        made["__setattr__"] = __setattr__
        made["__delattr__"] = __delattr__
    elif not explicit_hash:
        cls.__hash__ = None  # type: ignore[assignment]  # eq without frozen: unhashable, as in the standard library
    for name, fn in made.items():
        fn.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, fn)


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of these attributes (what the standard library's `__eq__` and `__hash__` compare)."""
    if len(names) > 1:
        return attrgetter(*names)  # type: ignore[return-value]
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _first_init(cls: type, fields: dict[str, Spec], frozen: bool) -> Callable[..., None]:
    """The `__init__` a class starts with: the generic one below for its first `COMPILE_AFTER - 1`
    instances, then the compiled one, installed on the class for every instance after."""
    generic = _generic_init(cls, fields, frozen)
    left = COMPILE_AFTER

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal left
        left -= 1
        if left > 0:
            return generic(self, args, kwargs)
        real = _compiled_init(cls, fields, frozen)
        cls.__init__ = real  # type: ignore[misc]  # from now on, instances go straight to it
        return real(self, *args, **kwargs)

    return __init__


def _generic_init(cls: type, fields: dict[str, Spec], frozen: bool) -> Callable[[Any, tuple[Any, ...], dict[str, Any]],
                                                                                None]:
    """What the compiled `__init__` does, over the field list: bind the arguments as Python binds them
    to `def __init__(self, a, b=..., ...)` (its errors, in its order, with its words), then set each field.
    No `compile`: a class made a few times in a run costs no more than a loop per instance."""
    names = tuple(fields)
    index = {n: i for i, n in enumerate(names)}
    fallback = tuple(_FACTORY if f.default_factory is not MISSING else f.default for f in fields.values())
    factories = tuple(f.default_factory for f in fields.values())
    positional = _positional_words(len(names), sum(f is MISSING for f in fallback))
    put = object.__setattr__ if frozen else setattr

    def bind(self: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        given = len(args)
        for k in kwargs:
            i = index.get(k)
            if i is None or i < given:
                raise _call_error(cls, f"got an unexpected keyword argument {k!r}" if i is None
                                  else f"got multiple values for argument {k!r}")
        if given > len(names):
            raise _call_error(cls, f"takes {positional} but {given + 1} were given")
        values = list(args)
        missing = []
        for i in range(given, len(names)):
            name = names[i]
            value = kwargs.get(name, fallback[i]) if kwargs else fallback[i]
            if value is MISSING:
                missing.append(name)
            elif value is _FACTORY and name not in kwargs:
                value = factories[i]()
            values.append(value)
        if missing:
            raise _call_error(cls, _missing_words(missing))
        for name, value in zip(names, values, strict=True):
            put(self, name, value)

    return bind


def _positional_words(fields: int, required: int) -> str:
    if fields == required:
        return f"{fields + 1} positional argument" + ("s" if fields else "")
    return f"from {required + 1} to {fields + 1} positional arguments"


def _missing_words(missing: list[str]) -> str:
    quoted = [repr(n) for n in missing]
    if len(quoted) == 1:
        listed = quoted[0]
    elif len(quoted) == 2:
        listed = f"{quoted[0]} and {quoted[1]}"
    else:
        listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    return f"missing {len(missing)} required positional argument{'s' if len(missing) > 1 else ''}: {listed}"


def _call_error(cls: type, words: str) -> TypeError:
    return TypeError(f"{cls.__qualname__}.__init__() {words}")


def _compiled_init(cls: type, fields: dict[str, Spec], frozen: bool) -> Callable[..., None]:
    """`__init__` from source, as the standard library writes it."""
    env: dict[str, Any] = {"__set": object.__setattr__, "__FACTORY": _FACTORY}
    params, body = [], []
    for n, f in fields.items():
        if f.default_factory is not MISSING:
            env[f"__factory_{n}"] = f.default_factory
            params.append(f"{n}=__FACTORY")
            value = f"__factory_{n}() if {n} is __FACTORY else {n}"
        elif f.default is not MISSING:
            env[f"__default_{n}"] = f.default
            params.append(f"{n}=__default_{n}")
            value = n
        else:
            params.append(n)
            value = n
        body.append(f"  __set(self, {n!r}, {value})" if frozen else f"  self.{n} = {value}")
    src = "\n".join([f"def __init__(self, {', '.join(params)}):", *(body or ["  pass"])])
    made: dict[str, Any] = {}
    exec(compile(src, f"<dataclass {cls.__qualname__}>", "exec"), env, made)  # noqa: S102
    init = made["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:
    dataclass, field = _dataclass, _field
