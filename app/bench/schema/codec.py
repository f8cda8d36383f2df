"""One JSON codec driven by dataclass fields: a field is declared once, on its dataclass, and its
JSON form, its strict reading and its place in the object follow from the declaration.

    @dataclass(frozen=True, slots=True)
    class Progress:
        point: int
        elapsed_s: float = field(metadata=wire(digits=3))

    to_json_obj(Progress(0, 1.23456))          -> {"point": 0, "elapsed_s": 1.235}
    from_json_obj(Progress, {"point": 0, "elapsed_s": 1.235}, where="progress")

Keys follow the fields' declaration order (inherited fields first, as `dataclasses.fields`).
Types understood: bool, int, float, str, None, `X | None`, unions of these, `Literal[...]`,
enums (by value), nested dataclasses, `list[X]`, `tuple[X, ...]`, fixed tuples, `Sequence[X]`
(read back as a list), `dict[str, X]` / `Mapping[str, X]`, and `Any` (passed through as plain
JSON). Per-field options go in `dataclasses.field(metadata=wire(...))`: a wire name, rounding
digits for every float the field holds, ±inf written as the string "inf"/"-inf", leaving the key
out when the value is None or empty, and a transform that writes the field itself (e.g. dropping
arrays a line must not carry). Fields with `init=False` are not on the wire.

Reading is strict: an unknown key, a missing required key or a value of the wrong kind is a
SchemaError whose message names the field's path (`point_finished.summary.completed: must be a
whole number, got 'x'`); `true` is never a number, `1` never a bool. Whole numbers read into a
float field stay ints, so reading and writing again gives the same JSON.

Why dataclasses and this codec rather than msgspec Structs: msgspec would be a new compiled
dependency for the desktop bundle and would change the types the rest of the code handles
(Structs, not dataclasses) in every module at once, while the per-field rounding and the
"inf" spelling the stream has always had would still need code of ours around it. The cost of
staying in pure Python is small: each class's writer is generated once from its fields (as
dataclasses generates __init__; roundings spelled inline), and so is its reader (scalar fields
checked inline, nested objects read by their class's own reader, a plain dataclass filled
without its __init__; no type inspected while reading: a point file's ~33 nested blocks,
benchmarks/block_decode.py). benchmarks/event_codec.py, the whole line (encode: event -> JSON
text; decode: text -> event), thread CPU time, best of 7, three
before/after pairs run alternately on 2 cores at load 4.4-6.0: the runs spread by up to 1.7x
between pairs, and within a pair the codec is within that noise of the hand-written code. In
the quietest pair (before -> after, us per event): encode tokens x20 31.9 -> 33.8, tokens x400
566 -> 549, progress 8.7 -> 6.8, request 7.7 -> 8.3; decode 14.3 -> 13.9, 136 -> 123,
9.4 -> 8.8, 12.2 -> 9.7. At those costs a busy point's stream (10 token batches and 10
progress lines a second, 100 requests a second) takes about 1.2 ms of CPU a second, ~0.1% of a
core: a faster (compiled) codec would not be visible, a second kind of data type would.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence, Sized
from typing import Any, Literal, TypeVar

T = TypeVar("T")

_OPTIONS_KEY = "tpotbench.schema"
_NUMBER_TYPES = (int, float)  # exact types: JSON true/false are bools, never numbers here
_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


class SchemaError(ValueError):
    """A value that does not fit its declared type; the message names the field's path.
    `path` and `problem` are the message's two parts (`from_json_obj` sets them; a reader of
    a field's own, `wire(read=...)`, raises one and the codec puts the field's path before)."""

    def __init__(self, message: str, *, path: str = "", problem: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.problem = message if problem is None else problem


@dataclasses.dataclass(frozen=True, slots=True)
class FieldOptions:
    """How one field is written and read (see `wire`)."""

    name: str | None = None
    digits: int | None = None
    inf_as_text: bool = False
    omit: Omit = None
    transform: Callable[[Any], Any] | None = None
    present_with: str | None = None
    read: Callable[[Any], Any] | None = None


# When a key is left out: "none" (its value is None), "empty" (None or empty). A key present
# only beside another one is `present_with`.
Omit = Literal["none", "empty"] | None


def wire(
    *,
    name: str | None = None,
    digits: int | None = None,
    inf_as_text: bool = False,
    omit: Omit = None,
    transform: Callable[[Any], Any] | None = None,
    present_with: str | None = None,
    read: Callable[[Any], Any] | None = None,
) -> dict[str, FieldOptions]:
    """The metadata for `dataclasses.field(metadata=...)`.

    name: the JSON key, when not the field's name. digits: every float the field holds is
    written rounded to this many decimals. inf_as_text: ±inf written as "inf"/"-inf" (JSON has
    no infinity) and read back. omit="none": the key is left out when the value is None;
    omit="empty": also when it is an empty string, list or object (the field needs a default,
    which reading gives back). transform: gives the field's JSON form in place of the codec's
    writing (e.g. a document without its arrays, through `to_json_obj`); reading does not undo
    it. present_with: the key is written only when the field of that name is not None (keys
    written as a group, null or not, when the group's leading figure is there; the field
    needs a default). read: reads the field's JSON in place of the codec (a document with a
    reader of its own); it raises SchemaError, whose `path` the codec puts after the field's.
    """
    return {
        _OPTIONS_KEY: FieldOptions(name, digits, inf_as_text, omit, transform, present_with, read)
    }


def field_options(f: dataclasses.Field[Any]) -> FieldOptions:
    """The codec options declared on one dataclass field (defaults when none)."""
    found = f.metadata.get(_OPTIONS_KEY)
    return found if isinstance(found, FieldOptions) else _NO_OPTIONS


_NO_OPTIONS = FieldOptions()


# ---- errors while reading: the path is assembled only when something is wrong ------------


class _Bad(Exception):
    """Raised inside a read; each enclosing level prepends its part of the path."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.path: list[str] = []  # innermost first


def _wrong(what: str, value: object) -> _Bad:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return _Bad(f"must be {what}, got {shown}")


def _at(bad: _Bad, segment: str) -> _Bad:
    bad.path.append(segment)
    return bad


def _message(where: str, bad: _Bad) -> str:
    path = where + "".join(reversed(bad.path))
    path = path.removeprefix(".")
    return f"{path}: {bad.problem}" if path else bad.problem


# ---- plans: each class's fields compiled once into readers and writers -------------------

Writer = Callable[[Any], Any]
Reader = Callable[[Any], Any]


@dataclasses.dataclass(frozen=True, slots=True)
class _WriteStep:
    attr: str
    key: str
    write: Writer | None  # None: the value is already JSON (str, int, bool, None)
    omit: Omit
    transform: Writer | None
    present_with: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class _ReadStep:
    attr: str
    key: str
    read: Reader
    required: bool


@dataclasses.dataclass(frozen=True, slots=True)
class _Plan:
    write: Callable[[Any], dict[str, Any]]
    read: Callable[[Any], Any]  # raises _Bad
    reads: tuple[_ReadStep, ...]
    by_key: dict[str, _ReadStep]


_PLANS: dict[type[Any], _Plan] = {}
_BUILDING: set[type[Any]] = set()  # classes whose plan is being built (a class inside itself)


def _plan(cls: type[Any]) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is None:
        _BUILDING.add(cls)
        try:
            plan = _PLANS[cls] = _build_plan(cls)
        finally:
            _BUILDING.discard(cls)
    return plan


def _build_plan(cls: type[Any]) -> _Plan:
    try:
        hints = typing.get_type_hints(cls)
    except (NameError, TypeError) as exc:
        raise TypeError(f"{cls.__qualname__}: its field types cannot be resolved ({exc})") from exc
    writes: list[_WriteStep] = []
    reads: list[_ReadStep] = []
    inline: list[str | None] = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        opts = field_options(f)
        tp = hints[f.name]
        has_default = (
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        )
        if (opts.omit is not None or opts.present_with is not None) and not has_default:
            raise TypeError(f"{cls.__qualname__}.{f.name}: omit= needs a default to read back")
        if opts.present_with is not None and opts.present_with not in hints:
            raise TypeError(f"{cls.__qualname__}.{f.name}: present_with names no field")
        key = opts.name or f.name
        writes.append(
            _WriteStep(f.name, key, _writer(tp, opts), opts.omit, opts.transform, opts.present_with)
        )
        read = _reader(tp, opts) if opts.read is None else _own_reader(opts.read)
        reads.append(_ReadStep(f.name, key, read, not has_default))
        inline.append(_inline_float(tp, opts))
    keys = [s.key for s in reads]
    if len(set(keys)) != len(keys):
        raise TypeError(f"{cls.__qualname__}: two fields share one wire name")
    write = _compile_writer(cls, writes, inline)
    by_key = {s.key: s for s in reads}
    fast = [
        None if field_options(f).read else _fast_kinds(hints[s.attr], field_options(f))
        for s, f in _init_fields(cls, reads)
    ]
    defaults = [_default_of(f) for _, f in _init_fields(cls, reads)]
    read = _compile_reader(cls, reads, fast, defaults, by_key)
    return _Plan(write, read, tuple(reads), by_key)


def _init_fields(
    cls: type[Any], reads: list[_ReadStep]
) -> list[tuple[_ReadStep, dataclasses.Field[Any]]]:
    by_name = {f.name: f for f in dataclasses.fields(cls)}
    return [(s, by_name[s.attr]) for s in reads]


def _default_of(f: dataclasses.Field[Any]) -> tuple[str, Any]:
    """How a field left out of the object gets its value: ('value', v), ('factory', make) or
    ('missing', None) for a required field."""
    if f.default is not dataclasses.MISSING:
        return ("value", f.default)
    if f.default_factory is not dataclasses.MISSING:
        return ("factory", f.default_factory)
    return ("missing", None)


def _fast_kinds(tp: Any, opts: FieldOptions) -> tuple[type, ...] | None:
    """The exact JSON types a field of type `tp` takes as they are (checked inline by the
    generated reader; anything else goes to the field's reader, which converts or refuses it):
    a plain scalar, or one such scalar or null."""
    nullable = False
    if _is_union(tp):
        members = [a for a in _args(tp) if a is not type(None)]
        if len(members) != 1:
            return None
        nullable, tp = len(members) < len(_args(tp)), members[0]
    kinds: tuple[type, ...]
    if tp is float:
        kinds = _NUMBER_TYPES
    elif tp in (int, str, bool):
        kinds = (tp,)
    else:
        return None
    return (*kinds, type(None)) if nullable else kinds


def _compile_reader(
    cls: type[Any],
    reads: list[_ReadStep],
    fast: list[tuple[type, ...] | None],
    defaults: list[tuple[str, Any]],
    by_key: dict[str, _ReadStep],
) -> Callable[[Any], Any]:
    """One function per class that reads its JSON object strictly, generated from the fields
    (as the writer): scalar fields are checked inline, nested objects call their class's own
    reader, and no type is inspected while reading. The same checks, in the same order, as
    reading field by field: the first bad or missing field in declaration order, then an
    unknown key, then the class's own checks."""
    namespace: dict[str, Any] = {
        "_cls": cls,
        "_M": _MISSING,
        "_Bad": _Bad,
        "_wrong": _wrong,
        "_at": _at,
        "_by_key": by_key,
    }
    lines = [
        "def read(obj):",
        "    if type(obj) is not dict:",
        "        raise _wrong('an object', obj)",
        "    found = 0",
    ]
    for i, (step, kinds, (how, default)) in enumerate(zip(reads, fast, defaults, strict=True)):
        key = repr(step.key)
        namespace[f"_r{i}"] = step.read
        if kinds is not None:
            namespace[f"_k{i}"] = frozenset(kinds)
            expr = f"v if type(v) in _k{i} else _r{i}(v)"
        else:
            expr = f"_r{i}(v)"
        lines += [f"    v = obj.get({key}, _M)", "    if v is _M:"]
        if how == "value":
            namespace[f"_d{i}"] = default
            lines.append(f"        a{i} = _d{i}")
        elif how == "factory":
            namespace[f"_d{i}"] = default
            lines.append(f"        a{i} = _d{i}()")
        else:
            lines.append(f"        raise _at(_Bad('missing'), {'.' + step.key!r})")
        lines += [
            "    else:",
            "        found += 1",
            "        try:",
            f"            a{i} = {expr}",
            "        except _Bad as bad:",
            f"            bad.path.append({'.' + step.key!r})",
            "            raise",
        ]
    lines += [
        "    if found != len(obj):",
        "        unknown = next(k for k in obj if k not in _by_key)",
        "        raise _at(_Bad('unknown field'), '.' + unknown)",
    ]
    if _plain_init(cls, len(reads)):
        # What the generated __init__ would do, without its object.__setattr__ per field (a
        # frozen class's): most of the cost of reading a small block.
        namespace["_new"] = object.__new__
        values = ", ".join(f"{step.attr!r}: a{i}" for i, step in enumerate(reads))
        lines += ["    o = _new(_cls)", f"    o.__dict__.update({{{values}}})", "    return o"]
    else:
        args = ", ".join(f"{step.attr}=a{i}" for i, step in enumerate(reads))
        lines += [
            "    try:",
            f"        return _cls({args})",
            "    except (TypeError, ValueError) as exc:  # the class's own checks (__post_init__)",
            "        raise _Bad(f'not valid: {str(exc)[:120]}') from None",
        ]
    exec(compile("\n".join(lines), f"<codec reader of {cls.__qualname__}>", "exec"), namespace)
    read: Callable[[Any], Any] = namespace["read"]
    return read


def _plain_init(cls: type[Any], n_read: int) -> bool:
    """Whether `cls.__init__` only stores its arguments: generated by dataclasses (not the
    class's own), no __post_init__ checks, no slots, every field an argument."""
    init = getattr(cls.__init__, "__code__", None)
    return (
        init is not None
        and init.co_filename == "<string>"  # where dataclasses compiles the __init__ it makes
        and not hasattr(cls, "__post_init__")
        and not hasattr(cls, "__slots__")
        and len(dataclasses.fields(cls)) == n_read
        and getattr(cls, "__dataclass_params__", None) is not None
        and cls.__dataclass_params__.init
    )


_MISSING = object()


def _inline_float(tp: Any, opts: FieldOptions) -> str | None:
    """A rounding the generated writer can spell inline ("{}" stands for the value): the hot
    events are mostly rounded floats and lists of them, and a call per value would double the
    cost of writing them."""
    if opts.digits is None or opts.inf_as_text:
        return None
    d = opts.digits
    if tp is float:
        return f"round({{}}, {d})"
    if _is_union(tp) and set(_args(tp)) == {float, type(None)}:
        return f"(None if (_v := {{}}) is None else round(_v, {d}))"
    origin, args = typing.get_origin(tp), _args(tp)
    if origin in (list, Sequence) and args == (float,):
        return f"[round(_x, {d}) for _x in {{}}]"
    if origin is tuple and args == (float, Ellipsis):
        return f"[round(_x, {d}) for _x in {{}}]"
    return None


def _compile_writer(
    cls: type[Any], writes: list[_WriteStep], inline: list[str | None]
) -> Callable[[Any], dict[str, Any]]:
    """One function per class that builds its JSON object, generated from the fields (as
    dataclasses generates __init__): it costs what a hand-written dict builder costs."""
    namespace: dict[str, Any] = {"_is_empty": _is_empty, "_transformed": _transformed}
    literal: list[str] = []  # the leading fields that are always written: one dict display
    statements: list[str] = []
    for i, (step, spelled) in enumerate(zip(writes, inline, strict=True)):
        optional = step.omit is not None or step.present_with is not None
        value = f"o.{step.attr}" if not optional else "v"
        if step.transform is not None:  # it gives the field's JSON form itself
            namespace[f"_t{i}"] = step.transform
            expr = f"_transformed(_t{i}({value}))"
        elif spelled is not None:
            expr = spelled.format(value)
        elif step.write is not None:
            namespace[f"_w{i}"] = step.write
            expr = f"_w{i}({value})"
        else:
            expr = value
        key = repr(step.key)
        if not optional and not statements:
            literal.append(f"{key}: {expr}")
        elif not optional:
            statements.append(f"    out[{key}] = {expr}")
        else:
            tests = [f"o.{step.present_with} is not None"] if step.present_with else []
            if step.omit is not None:
                tests.append("v is not None" if step.omit == "none" else "not _is_empty(v)")
            test = " and ".join(tests)
            statements += [
                f"    v = o.{step.attr}",
                f"    if {test}:",
                f"        out[{key}] = {expr}",
            ]
    source = "\n".join(
        ["def write(o):", f"    out = {{{', '.join(literal)}}}", *statements, "    return out"]
    )
    exec(compile(source, f"<codec writer of {cls.__qualname__}>", "exec"), namespace)
    write: Callable[[Any], dict[str, Any]] = namespace["write"]
    return write


def _args(tp: Any) -> tuple[Any, ...]:
    return typing.get_args(tp)


def _is_union(tp: Any) -> bool:
    origin = typing.get_origin(tp)
    return origin is typing.Union or origin is types.UnionType


# ---- writing ------------------------------------------------------------------------------


def _float_writer(opts: FieldOptions) -> Writer | None:
    digits, inf_text = opts.digits, opts.inf_as_text
    if digits is None and not inf_text:
        return None
    if not inf_text:
        assert digits is not None
        return lambda v: round(v, digits)

    def write(v: Any) -> Any:
        if v == math.inf:
            return "inf"
        if v == -math.inf:
            return "-inf"
        return v if digits is None else round(v, digits)

    return write


def _writer(tp: Any, opts: FieldOptions) -> Writer | None:
    """How a value of type `tp` becomes JSON; None when it already is."""
    if tp is Any:
        return _plain
    if tp in (int, str, bool, type(None)):
        return None
    if tp is float:
        return _float_writer(opts)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_value
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        plan_of = tp
        return lambda v: _write_object(v, _plan(plan_of))
    origin = typing.get_origin(tp)
    if origin is Literal:
        return None if all(type(a) in _PLAIN_TYPES for a in _args(tp)) else _plain
    if _is_union(tp):
        members = [a for a in _args(tp) if a is not type(None)]
        if len(members) == 1:
            inner = _writer(members[0], opts)
            if inner is None:
                return None
            return lambda v: None if v is None else inner(v)
        return lambda v: None if v is None else _write_any_of(v, members, opts)
    if origin in (list, tuple, Sequence):
        args = _args(tp)
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            parts = [_writer(a, opts) for a in args]
            return lambda v: [x if w is None else w(x) for w, x in zip(parts, v, strict=True)]
        item = _writer(args[0], opts) if args else _plain
        if item is None:
            return list
        return lambda v: [item(x) for x in v]
    if origin in (dict, Mapping):
        args = _args(tp)
        value = _writer(args[1], opts) if len(args) == 2 else _plain
        if value is None:
            return _str_keys
        return lambda v: {k: value(x) for k, x in _str_keys(v).items()}
    raise TypeError(f"the codec does not know how to write {tp!r}")


def _write_any_of(value: Any, members: list[Any], opts: FieldOptions) -> Any:
    if isinstance(value, float) and float in members:
        write = _float_writer(opts)
        return value if write is None else write(value)
    return _plain(value)


def _enum_value(value: Any) -> Any:
    return value.value


def _str_keys(value: Mapping[Any, Any]) -> dict[str, Any]:
    out = dict(value)
    for k in out:
        if not isinstance(k, str):
            raise SchemaError(f"an object key must be a string, got {k!r:.60}")
    return out


def _plain(value: Any) -> Any:
    """Any value as JSON: containers walked, dataclasses and enums converted; what JSON cannot
    hold (NaN, a foreign number type, a key that is not a string) is left for the JSON writer to
    judge, as it was before untyped data went through the codec (json.dumps writes 1 as "1")."""
    if type(value) in _PLAIN_TYPES:
        return value
    if isinstance(value, Mapping):
        return {k: _plain(x) for k, x in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(x) for x in value]
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _write_object(value, _plan(type(value)))
    return value


def _transformed(value: Any) -> Any:
    """What a field's transform gave, as JSON: an object's keys must be strings."""
    if isinstance(value, Mapping):
        return {k: _plain(x) for k, x in _str_keys(value).items()}
    return _plain(value)


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, Sized) and len(value) == 0)


def _write_object(value: Any, plan: _Plan) -> dict[str, Any]:
    return plan.write(value)


def to_json_obj(value: object) -> Any:
    """`value` (a dataclass instance, or any value the codec understands) as JSON-able objects:
    dicts with str keys in field order, lists, str, int, float, bool, None."""
    plan = _PLANS.get(type(value))
    if plan is not None:  # the common case first: a dataclass already seen
        return plan.write(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _write_object(value, _plan(type(value)))
    return _plain(value)


# ---- reading ------------------------------------------------------------------------------


def _exact(kinds: tuple[type, ...], what: str) -> Reader:
    def read(v: Any) -> Any:
        if type(v) in kinds:
            return v
        raise _wrong(what, v)

    return read


def _float_reader(opts: FieldOptions, nullable: bool) -> Reader:
    what = 'a number or "inf"' if opts.inf_as_text else "a number"
    what += " or null" if nullable else ""
    inf_text = opts.inf_as_text

    def read(v: Any) -> Any:
        if type(v) in _NUMBER_TYPES or (v is None and nullable):
            return v
        if inf_text and v in ("inf", "-inf"):
            return math.inf if v == "inf" else -math.inf
        raise _wrong(what, v)

    return read


def _own_reader(read: Reader) -> Reader:
    """A field's own reader (`wire(read=...)`): its SchemaError becomes the codec's, its path
    after the field's."""

    def reader(v: Any) -> Any:
        try:
            return read(v)
        except SchemaError as exc:
            bad = _Bad(exc.problem)
            if exc.path:
                bad.path.append("." + exc.path)
            raise bad from None

    return reader


def _nullable(inner: Reader) -> Reader:
    def read(v: Any) -> Any:
        return None if v is None else inner(v)

    return read


_SIMPLE: dict[Any, tuple[tuple[type, ...], str]] = {
    int: ((int,), "a whole number"),
    str: ((str,), "a string"),
    bool: ((bool,), "true or false"),
    type(None): ((type(None),), "null"),
}


def _reader(tp: Any, opts: FieldOptions, nullable: bool = False) -> Reader:
    """How JSON becomes a value of type `tp`; raises _Bad."""
    or_null = " or null" if nullable else ""
    if tp is Any:
        return lambda v: v
    if tp in _SIMPLE:
        kinds, what = _SIMPLE[tp]
        return _exact((*kinds, type(None)) if nullable else kinds, what + or_null)
    if tp is float:
        return _float_reader(opts, nullable)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_reader(tp, nullable)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        cls = tp
        # A class inside itself: its reader exists once its plan does.
        late: Reader = lambda v: _plan(cls).read(v)  # noqa: E731
        read_obj = late if cls in _BUILDING else _plan(cls).read
        return _nullable(read_obj) if nullable else read_obj
    origin = typing.get_origin(tp)
    if origin is Literal:
        return _literal_reader(_args(tp), nullable)
    if _is_union(tp):
        members = [a for a in _args(tp) if a is not type(None)]
        with_null = nullable or len(members) < len(_args(tp))
        if len(members) == 1:
            return _reader(members[0], opts, with_null)
        return _union_reader([_reader(m, opts) for m in members], with_null, _tag(members))
    if origin in (list, tuple, Sequence):
        return _sequence_reader(tp, origin, opts, nullable)
    if origin in (dict, Mapping):
        args = _args(tp)
        if args and args[0] is not str:
            raise TypeError(f"JSON object keys are strings: {tp!r}")
        value = _reader(args[1], opts) if len(args) == 2 else (lambda v: v)
        return _mapping_reader(value, args[1] if len(args) == 2 else Any, nullable)
    raise TypeError(f"the codec does not know how to read {tp!r}")


def _enum_reader(tp: type[enum.Enum], nullable: bool) -> Reader:
    values = {m.value: m for m in tp}
    what = "one of " + ", ".join(repr(v) for v in values) + (" or null" if nullable else "")

    def read(v: Any) -> Any:
        if v is None and nullable:
            return None
        member = values.get(v) if type(v) in _PLAIN_TYPES else None
        if member is None or type(member.value) is not type(v):
            raise _wrong(what, v)
        return member

    return read


def _literal_reader(allowed: tuple[Any, ...], nullable: bool) -> Reader:
    what = "one of " + ", ".join(repr(a) for a in allowed) + (" or null" if nullable else "")

    def read(v: Any) -> Any:
        if v is None and nullable:
            return None
        for a in allowed:
            if v == a and type(v) is type(a):
                return a
        raise _wrong(what, v)

    return read


def _tag(members: list[Any]) -> tuple[str, dict[Any, int]] | None:
    """For a union of dataclasses told apart by one required Literal field (e.g. `kind`):
    its key, and which member each of its values names. None when there is no such field."""
    if not all(isinstance(m, type) and dataclasses.is_dataclass(m) for m in members):
        return None
    tags: list[dict[str, tuple[Any, ...]]] = []
    for m in members:
        hints = typing.get_type_hints(m)
        tags.append(
            {
                field_options(f).name or f.name: _args(hints[f.name])
                for f in dataclasses.fields(m)
                if f.init
                and typing.get_origin(hints[f.name]) is Literal
                and f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING
            }
        )
    for key in tags[0]:
        if all(key in t for t in tags):
            which: dict[Any, int] = {}
            for i, t in enumerate(tags):
                for value in t[key]:
                    if (type(value), value) in which:  # a value two members share
                        return None
                    which[(type(value), value)] = i
            return key, which
    return None


def _union_reader(
    members: list[Reader], nullable: bool, tag: tuple[str, dict[Any, int]] | None = None
) -> Reader:
    key, which = tag if tag is not None else ("", {})

    def read(v: Any) -> Any:
        if v is None and nullable:
            return None
        if tag is not None and type(v) is dict:
            # The member the tag names is the only one that can read `v` (the others' tag
            # fields refuse its value): read it first; if it fails, the loop below gives the
            # same error as trying every member in order.
            t = v.get(key)
            i = which.get((type(t), t)) if type(t) in _PLAIN_TYPES else None
            if i is not None:
                with contextlib.suppress(_Bad):
                    return members[i](v)
        first: _Bad | None = None
        for member in members:
            try:
                return member(v)
            except _Bad as bad:
                first = first or bad
        assert first is not None
        raise first

    return read


def _sequence_reader(tp: Any, origin: Any, opts: FieldOptions, nullable: bool) -> Reader:
    args = _args(tp)
    what = "a list" + (" or null" if nullable else "")
    make: Callable[[list[Any]], Any] = tuple if origin is tuple else list
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        parts = [_reader(a, opts) for a in args]

        def read_fixed(v: Any) -> Any:
            if v is None and nullable:
                return None
            if type(v) is not list:
                raise _wrong(what, v)
            if len(v) != len(parts):
                raise _Bad(f"must hold {len(parts)} values, got {len(v)}")
            return tuple(_read_items(v, parts))

        return read_fixed
    item_tp = args[0] if args else Any
    kinds = _number_items(item_tp)
    if kinds is not None:  # the hot case (token arrivals, gauge samples): one pass, no calls
        item = _reader(item_tp, opts)

        def read_numbers(v: Any) -> Any:
            if v is None and nullable:
                return None
            if type(v) is not list:
                raise _wrong(what, v)
            for x in v:
                if type(x) not in kinds:
                    return make(_read_items(v, [item] * len(v)))  # raises, naming the item
            return v if make is list else make(v)

        return read_numbers
    item = _reader(item_tp, opts)

    def read(v: Any) -> Any:
        if v is None and nullable:
            return None
        if type(v) is not list:
            raise _wrong(what, v)
        out: list[Any] = []
        try:
            for x in v:
                out.append(item(x))
        except _Bad as bad:
            bad.path.append(f"[{len(out)}]")  # the item that failed is the next one
            raise
        return out if make is list else make(out)

    return read


def _number_items(tp: Any) -> tuple[type, ...] | None:
    """The exact JSON types a list of `tp` holds as they are, when `tp` is a number (or a
    number or null): such a list is checked in one pass; None for any other item type."""
    if tp is float or tp is int:
        return _NUMBER_TYPES if tp is float else (int,)
    if _is_union(tp) and set(_args(tp)) in ({float, type(None)}, {int, type(None)}):
        return (*(_NUMBER_TYPES if float in _args(tp) else (int,)), type(None))
    return None


def _read_items(values: list[Any], readers: Sequence[Reader]) -> list[Any]:
    out = []
    for i, (read, x) in enumerate(zip(readers, values, strict=True)):
        try:
            out.append(read(x))
        except _Bad as bad:
            bad.path.append(f"[{i}]")
            raise
    return out


def _mapping_reader(value: Reader, value_tp: Any, nullable: bool) -> Reader:
    what = "an object" + (" or null" if nullable else "")
    passthrough = value_tp is Any

    def read(v: Any) -> Any:
        if v is None and nullable:
            return None
        if type(v) is not dict:
            raise _wrong(what, v)
        if passthrough:
            return v
        out = {}
        for k, x in v.items():
            try:
                out[k] = value(x)
            except _Bad as bad:
                bad.path.append(f".{k}")
                raise
        return out

    return read


_TYPE_READERS: dict[Any, Reader] = {}  # from_json_obj's readers of types that are not classes


def from_json_obj(cls: type[T], obj: object, *, where: str = "") -> T:
    """`obj` (parsed JSON) read strictly into `cls`; SchemaError names the field's path,
    prefixed by `where`."""
    try:
        plan = _PLANS.get(cls)
        if plan is not None:  # the common case first: a dataclass already seen
            read = plan.read
        elif dataclasses.is_dataclass(cls):
            read = _plan(cls).read
        else:
            found = _TYPE_READERS.get(cls)
            read = (
                found
                if found is not None
                else _TYPE_READERS.setdefault(cls, _reader(cls, _NO_OPTIONS))
            )
        value: T = read(obj)
        return value
    except _Bad as bad:
        path = (where + "".join(reversed(bad.path))).removeprefix(".")
        raise SchemaError(_message(where, bad), path=path, problem=bad.problem) from None
