"""The dataclass-driven JSON codec: what it writes, that it reads it back, and that it refuses
everything else with one message naming the field's path."""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.bench.schema.codec import SchemaError, from_json_obj, to_json_obj, wire


class Api(enum.Enum):
    CHAT = "chat"
    COMPLETIONS = "completions"


@dataclass(frozen=True, slots=True)
class Leaf:
    name: str
    count: int
    share: float | None


@dataclass(frozen=True, slots=True)
class Summary:
    completed: int
    rate: float = field(metadata=wire(inf_as_text=True))


@dataclass(frozen=True, slots=True)
class Everything:
    flag: bool
    count: int
    value: float
    text: str
    maybe: int | None
    mode: Literal["closed", "open"]
    api: Api
    leaf: Leaf
    leaves: tuple[Leaf, ...]
    numbers: list[float]
    seq: Sequence[int]
    pair: tuple[int, str]
    table: dict[str, float]
    extra: Mapping[str, Any]
    number_or_text: int | str
    rate: float = field(metadata=wire(inf_as_text=True))
    renamed: int = field(default=0, metadata=wire(name="wire-name"))
    optional_leaf: Leaf | None = None
    note: str | None = field(default=None, metadata=wire(omit="none"))
    tags: tuple[str, ...] = field(default=(), metadata=wire(omit="empty"))


@dataclass(frozen=True, slots=True)
class Rounded:
    t_s: Sequence[float] = field(metadata=wire(digits=6))
    ms: float | None = field(metadata=wire(digits=4))
    first: float | None = field(default=None, metadata=wire(digits=6, omit="none"))


@dataclass(frozen=True, slots=True)
class Finished:
    point: int
    summary: Summary


_finite = st.floats(allow_nan=False, allow_infinity=False)
_json_scalar = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | _finite | st.text()
_json = st.recursive(
    _json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)
_leaf = st.builds(Leaf, st.text(), st.integers(), st.none() | _finite)
_everything = st.builds(
    Everything,
    flag=st.booleans(),
    count=st.integers(),
    value=_finite | st.integers(-(2**53), 2**53),
    text=st.text(),
    maybe=st.none() | st.integers(),
    mode=st.sampled_from(["closed", "open"]),
    api=st.sampled_from(Api),
    leaf=_leaf,
    leaves=st.lists(_leaf, max_size=3).map(tuple),
    numbers=st.lists(_finite, max_size=5),
    seq=st.lists(st.integers(), max_size=5),
    pair=st.tuples(st.integers(), st.text()),
    table=st.dictionaries(st.text(), _finite, max_size=3),
    extra=st.dictionaries(st.text(), _json, max_size=3),
    number_or_text=st.integers() | st.text(),
    rate=st.floats(allow_nan=False),
    renamed=st.integers(),
    optional_leaf=st.none() | _leaf,
    note=st.none() | st.text(),
    tags=st.lists(st.text(), max_size=3).map(tuple),
)


@given(_everything)
def test_any_value_survives_json_text_unchanged(value: Everything) -> None:
    text = json.dumps(to_json_obj(value), allow_nan=False)
    assert from_json_obj(Everything, json.loads(text)) == value


@given(
    st.lists(st.floats(allow_nan=False, allow_infinity=False) | st.integers(-100, 100)),
    st.none() | _finite,
    st.none() | _finite,
)
def test_rounded_fields_read_back_to_the_same_json(
    t_s: list[float], ms: float | None, first: float | None
) -> None:
    written = to_json_obj(Rounded(t_s, ms, first))
    assert written["t_s"] == [round(t, 6) for t in t_s]
    again = from_json_obj(Rounded, json.loads(json.dumps(written)))
    assert to_json_obj(again) == written
    assert json.dumps(to_json_obj(again)) == json.dumps(written)


def test_keys_follow_the_fields_order_with_options_applied() -> None:
    leaf = Leaf("a", 1, None)
    value = Everything(
        True, 2, 1.5, "x", None, "open", Api.CHAT, leaf, (leaf,), [0.5], [1], (3, "y"),
        {"k": 0.25}, {"any": [1, {"b": None}]}, "t", math.inf, renamed=7,
    )  # fmt: skip
    obj = to_json_obj(value)
    assert list(obj) == [
        "flag", "count", "value", "text", "maybe", "mode", "api", "leaf", "leaves", "numbers",
        "seq", "pair", "table", "extra", "number_or_text", "rate", "wire-name", "optional_leaf",
    ]  # fmt: skip
    assert obj["rate"] == "inf" and obj["api"] == "chat" and obj["pair"] == [3, "y"]
    assert obj["leaves"] == [{"name": "a", "count": 1, "share": None}]
    assert "note" not in obj and "tags" not in obj  # None / empty: left out
    with_both = to_json_obj(Everything(**{**_fields(value), "note": "", "tags": ("z",)}))
    assert with_both["note"] == "" and with_both["tags"] == ["z"]  # "" is not None
    assert from_json_obj(Everything, obj) == value
    assert from_json_obj(Summary, {"completed": 1, "rate": "-inf"}).rate == -math.inf


def _fields(value: Everything) -> dict[str, Any]:
    return {name: getattr(value, name) for name in Everything.__dataclass_fields__}


def test_whole_numbers_stay_whole_and_rounding_applies_to_every_float() -> None:
    obj = to_json_obj(Rounded([0.1234567891, 2.0, 3], 19.87654321))
    assert obj == {"t_s": [0.123457, 2.0, 3], "ms": 19.8765}
    assert json.dumps(obj) == '{"t_s": [0.123457, 2.0, 3], "ms": 19.8765}'
    again = from_json_obj(Rounded, obj)
    assert type(again.t_s[2]) is int and again.first is None


_GOOD_SUMMARY = {"completed": 3, "rate": 2.5}


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            {"point": 0, "summary": {**_GOOD_SUMMARY, "completed": "x"}},
            "point_finished.summary.completed: must be a whole number, got 'x'",
        ),
        ({"point": 0, "summary": {"rate": 1}}, "point_finished.summary.completed: missing"),
        ({"summary": _GOOD_SUMMARY}, "point_finished.point: missing"),
        (
            {"point": 0, "summary": _GOOD_SUMMARY, "extra": 1},
            "point_finished.extra: unknown field",
        ),
        (
            {"point": 0, "summary": {**_GOOD_SUMMARY, "x": 1}},
            "point_finished.summary.x: unknown field",
        ),
        ({"point": True, "summary": _GOOD_SUMMARY}, "point_finished.point: must be a whole number"),
        ({"point": 1.0, "summary": _GOOD_SUMMARY}, "point_finished.point: must be a whole number"),
        ({"point": 0, "summary": []}, "point_finished.summary: must be an object, got []"),
        (
            {"point": 0, "summary": {**_GOOD_SUMMARY, "rate": "fast"}},
            "point_finished.summary.rate: must be a number or \"inf\", got 'fast'",
        ),
        (
            {"point": 0, "summary": {**_GOOD_SUMMARY, "rate": None}},
            'point_finished.summary.rate: must be a number or "inf", got None',
        ),
        ([], "point_finished: must be an object, got []"),
    ],
)
def test_reading_refuses_with_the_fields_path(obj: Any, message: str) -> None:
    with pytest.raises(SchemaError) as caught:
        from_json_obj(Finished, obj, where="point_finished")
    assert str(caught.value) == message or str(caught.value).startswith(message + ", got")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"flag": 1}, "flag: must be true or false, got 1"),
        ({"value": True}, "value: must be a number, got True"),
        ({"mode": "half"}, "mode: must be one of 'closed', 'open', got 'half'"),
        ({"api": "grpc"}, "api: must be one of 'chat', 'completions', got 'grpc'"),
        ({"leaves": [{"name": "a", "count": 1}]}, "leaves[0].share: missing"),
        ({"numbers": [0.5, "x"]}, "numbers[1]: must be a number, got 'x'"),
        ({"numbers": [False]}, "numbers[0]: must be a number, got False"),
        ({"seq": [1, 2.5]}, "seq[1]: must be a whole number, got 2.5"),
        ({"pair": [1]}, "pair: must hold 2 values, got 1"),
        ({"pair": [1, 2]}, "pair[1]: must be a string, got 2"),
        ({"table": {"k": "v"}}, "table.k: must be a number, got 'v'"),
        ({"number_or_text": 1.5}, "number_or_text: must be a whole number, got 1.5"),
        ({"tags": None}, "tags: must be a list, got None"),
        ({"maybe": "x"}, "maybe: must be a whole number or null, got 'x'"),
    ],
)
def test_every_kind_is_checked(change: dict[str, Any], message: str) -> None:
    leaf = {"name": "a", "count": 1, "share": None}
    good = {
        "flag": True, "count": 1, "value": 1.5, "text": "t", "maybe": None, "mode": "open",
        "api": "chat", "leaf": leaf, "leaves": [], "numbers": [], "seq": [], "pair": [1, "a"],
        "table": {}, "extra": {}, "number_or_text": 1, "rate": 1.0,
    }  # fmt: skip
    from_json_obj(Everything, good)  # the baseline reads
    with pytest.raises(SchemaError) as caught:
        from_json_obj(Everything, {**good, **change})
    assert str(caught.value) == message


def test_a_long_bad_value_is_shown_short() -> None:
    with pytest.raises(SchemaError) as caught:
        from_json_obj(Leaf, {"name": "x" * 10_000, "count": "9" * 10_000, "share": None})
    assert len(str(caught.value)) < 120


def test_plain_values_and_types_outside_dataclasses() -> None:
    assert from_json_obj(list[int], [1, 2]) == [1, 2]
    assert from_json_obj(float, 2) == 2
    with pytest.raises(SchemaError, match=r"^\[1\]: must be a whole number"):
        from_json_obj(list[int], [1, "2"])
    assert to_json_obj({"a": (Api.CHAT, Leaf("n", 1, 0.5))}) == {
        "a": ["chat", {"name": "n", "count": 1, "share": 0.5}]
    }
    assert to_json_obj({1: [2]}) == {1: [2]}  # untyped: left for the JSON writer to judge
    with pytest.raises(SchemaError, match="key must be a string, got 1"):
        to_json_obj(_table_with({1: 2.0}))


@dataclass(frozen=True, slots=True)
class Table:
    table: dict[str, float]


def _table_with(table: dict[Any, float]) -> Table:
    return Table(table)


def test_a_class_the_codec_cannot_handle_is_refused_when_first_used() -> None:
    @dataclass
    class NoDefault:
        note: str | None = field(metadata=wire(omit="none"))

    with pytest.raises(TypeError, match="omit= needs a default"):
        to_json_obj(NoDefault(None))

    @dataclass
    class Odd:
        when: complex

    with pytest.raises(TypeError, match="does not know how to write"):
        to_json_obj(Odd(1j))


@dataclass(frozen=True, slots=True)
class Middle:
    first: int
    note: str | None = field(default=None, metadata=wire(omit="none"))
    doc: Mapping[str, Any] = field(
        default_factory=dict, metadata=wire(transform=lambda d: {k: d[k] for k in d if k != "big"})
    )
    last: float = field(default=0.0, metadata=wire(digits=1))


def test_a_left_out_key_in_the_middle_keeps_the_order_and_a_transform_runs_first() -> None:
    assert list(to_json_obj(Middle(1, "n", {"big": [1], "a": 2}, 2.25))) == [
        "first",
        "note",
        "doc",
        "last",
    ]
    obj = to_json_obj(Middle(1, None, {"big": [1], "a": 2}, 2.26))
    assert obj == {"first": 1, "doc": {"a": 2}, "last": 2.3}
    assert list(obj) == ["first", "doc", "last"]
    assert from_json_obj(Middle, obj) == Middle(1, None, {"a": 2}, 2.3)
    assert from_json_obj(Middle, {"first": 1}) == Middle(1)


@dataclass(frozen=True)
class PlainLeaf:  # no slots, no __post_init__: read without calling its __init__
    count: int | None = None
    tags: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Checked:
    low: float
    high: float

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")


@dataclass(frozen=True)
class Tree:
    name: str
    leaf: PlainLeaf | None = None
    children: tuple[Tree, ...] = ()
    checked: Checked | None = None


def test_generated_readers_build_what_the_constructor_builds() -> None:
    obj = {
        "name": "root",
        "leaf": {"count": 3},
        "children": [{"name": "a", "leaf": {"tags": ["x"]}}, {"name": "b"}],
        "checked": {"low": 1, "high": 2.5},
    }
    tree = from_json_obj(Tree, obj)
    expected = Tree(
        "root",
        PlainLeaf(3),
        (Tree("a", PlainLeaf(None, ["x"])), Tree("b")),
        Checked(1, 2.5),
    )
    assert tree == expected and hash(tree.checked) == hash(expected.checked)
    assert to_json_obj(tree) == {**obj, "leaf": {"count": 3, "tags": []}} | {
        "children": [
            {"name": "a", "leaf": {"count": None, "tags": ["x"]}, "children": [], "checked": None},
            {"name": "b", "leaf": None, "children": [], "checked": None},
        ]
    }
    # A left-out field with a default factory gets a new value each read, as the constructor.
    first, second = from_json_obj(PlainLeaf, {}), from_json_obj(PlainLeaf, {})
    assert first.tags == [] and first.tags is not second.tags
    with pytest.raises(AttributeError):
        first.count = 1  # type: ignore[misc]  # still frozen
    # The class's own checks still run, and a nested failure names its path.
    with pytest.raises(SchemaError, match=r"^tree\.children\[0\]\.checked: not valid: low above"):
        from_json_obj(
            Tree,
            {"name": "r", "children": [{"name": "a", "checked": {"low": 3, "high": 2}}]},
            where="tree",
        )
    with pytest.raises(SchemaError, match=r"^children\[0\]\.leaf\.count: must be a whole"):
        from_json_obj(Tree, {"name": "r", "children": [{"name": "a", "leaf": {"count": 1.5}}]})
    with pytest.raises(SchemaError, match=r"^leaf\.extra: unknown field"):
        from_json_obj(Tree, {"name": "r", "leaf": {"extra": 1}})


@dataclass(frozen=True)
class StatLimit:
    kind: Literal["stat"]
    ms: float


@dataclass(frozen=True)
class ShareLimit:
    kind: Literal["good", "failed"]
    share: float


@dataclass(frozen=True)
class Limits:
    checks: tuple[StatLimit | ShareLimit, ...] = ()


def test_a_union_told_apart_by_a_tag_reads_each_member_and_errs_as_in_order() -> None:
    obj = {"checks": [{"kind": "failed", "share": 0.01}, {"kind": "stat", "ms": 50}]}
    assert from_json_obj(Limits, obj) == Limits((ShareLimit("failed", 0.01), StatLimit("stat", 50)))
    # A broken member: the error is the first member's, as when every member is tried in turn.
    bad = {"checks": [{"kind": "stat", "ms": 1}, {"kind": "good", "share": "x"}]}
    with pytest.raises(SchemaError, match=r"^checks\[1\]\.kind: must be one of 'stat', got 'good'"):
        from_json_obj(Limits, bad)
    with pytest.raises(SchemaError, match=r"^checks\[0\]\.kind: must be one of 'stat', got 'bad'"):
        from_json_obj(Limits, {"checks": [{"kind": "bad", "share": 1}]})


@dataclass(frozen=True)
class Pool:
    """A group of keys written together once the leading one is there, null or not."""

    tokens: int | None = field(default=None, metadata=wire(omit="none"))
    blocks: int | None = field(default=None, metadata=wire(present_with="tokens"))
    size: int | None = field(default=None, metadata=wire(present_with="tokens", omit="none"))
    after: str = "x"


def test_a_key_present_with_another_is_written_null_beside_it_and_left_out_without_it() -> None:
    assert to_json_obj(Pool(100, None, 16)) == {
        "tokens": 100,
        "blocks": None,
        "size": 16,
        "after": "x",
    }
    assert to_json_obj(Pool(100, None, None)) == {"tokens": 100, "blocks": None, "after": "x"}
    assert to_json_obj(Pool(None, 5, 16)) == {"after": "x"}
    assert from_json_obj(Pool, {"tokens": 100, "blocks": None}) == Pool(100)

    @dataclass
    class Unknown:
        blocks: int | None = field(default=None, metadata=wire(present_with="tokenz"))

    with pytest.raises(TypeError, match="present_with names no field"):
        to_json_obj(Unknown())


@dataclass(frozen=True)
class _Gauges:
    samples: int | None = field(default=None, metadata=wire(omit="none"))
    running: float | None = field(default=None, metadata=wire(present_with="samples"))


def test_a_key_left_out_without_the_one_it_goes_with() -> None:
    assert to_json_obj(_Gauges()) == {}
    assert to_json_obj(_Gauges(3)) == {"samples": 3, "running": None}  # null beside samples
    assert from_json_obj(_Gauges, {"samples": 3, "running": None}) == _Gauges(3)


def _own(obj: Any) -> str:
    if not isinstance(obj, dict) or not isinstance(obj.get("v"), str):
        raise SchemaError("inner.v: must be text", path="inner.v", problem="must be text")
    return str(obj["v"])


@dataclass(frozen=True)
class _Holder:
    kept: str = field(metadata=wire(transform=lambda v: {"v": v}, read=_own))


def test_a_field_with_its_own_reader_reads_back_and_its_errors_name_the_path() -> None:
    assert from_json_obj(_Holder, to_json_obj(_Holder("x"))) == _Holder("x")
    with pytest.raises(SchemaError) as caught:
        from_json_obj(_Holder, {"kept": {"v": 1}}, where="event")
    assert str(caught.value) == "event.kept.inner.v: must be text"
    assert (caught.value.path, caught.value.problem) == ("event.kept.inner.v", "must be text")


def test_lists_of_numbers_or_null_read_in_one_pass_and_name_a_bad_item() -> None:
    """Gauge samples (server_metrics.series): numbers and nulls as they are, ints stay ints;
    anything else is refused at its index, as an item of any other list is."""
    samples = {"t_s": [0.0, 1, 2.5], "running": [None, 3.0, 4]}
    assert from_json_obj(dict[str, list[float | None]], samples) == samples
    assert from_json_obj(list[int | None], [1, None, 2]) == [1, None, 2]
    with pytest.raises(SchemaError, match=r"^series\.running\[1\]: must be a number or null"):
        from_json_obj(dict[str, list[float | None]], {"running": [1.0, "x"]}, where="series")
    with pytest.raises(SchemaError, match=r"^\[0\]: must be a whole number or null"):
        from_json_obj(list[int | None], [1.5])
    with pytest.raises(SchemaError, match=r"^\[2\]: must be a number or null, got True"):
        from_json_obj(list[float | None], [None, 1, True])
