"""typings/pyqtgraph (what mypy believes of pyqtgraph) promises only what pyqtgraph has: every
function, class, method and attribute it declares exists, and every parameter it names is one the
real one takes. A stub that drifted would let mypy pass a call that fails at run time."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from pathlib import Path

import pyqtgraph as pg

STUB = Path(__file__).resolve().parents[2] / "typings" / "pyqtgraph" / "__init__.pyi"
# The stub's own base for what PlotItem defines and PlotWidget forwards to it (__getattr__).
FORWARDED = "_PlotMethods"


def _instances() -> dict[str, object]:
    """One of each class whose declared attributes are set per instance, not on the class."""
    plot = pg.PlotWidget()
    item = plot.getPlotItem()
    legend = item.addLegend()
    curve = plot.plot([1.0, 2.0], [3.0, 4.0], name="c")
    return {
        "PlotWidget": plot,
        "PlotItem": item,
        "AxisItem": item.getAxis("left"),
        "GraphicsScene": plot.scene(),
        "PlotDataItem": curve,
        "ScatterPlotItem": curve.scatter,
        "LegendItem": legend,
        "ItemSample": legend.items[0][0],
        "LabelItem": legend.items[0][1],
        "TextItem": pg.TextItem("t"),
        "InfiniteLine": pg.InfiniteLine(pos=1.0, label="x"),
    }


def _missing_parameters(stub: ast.FunctionDef, real: Callable[..., object]) -> list[str]:
    try:
        params = inspect.signature(real).parameters.values()
    except (TypeError, ValueError):  # a Qt builtin or a property: no signature to compare
        return []
    names = {p.name for p in params}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return []  # takes any keyword
    args = stub.args
    declared = [a.arg for a in args.args[1:] + args.kwonlyargs if a.arg != "self"]
    return [name for name in declared if name not in names]


def stub_problems(stub: Path, instances: dict[str, object]) -> list[str]:
    """What the stub declares and pyqtgraph lacks, as pg.Class.member or pg.f(param=...)."""
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    problems = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            real = getattr(pg, node.name, None)
            if real is None:
                problems.append(f"pg.{node.name}")
            else:
                problems += [f"pg.{node.name}({p}=...)" for p in _missing_parameters(node, real)]
            continue
        if not isinstance(node, ast.ClassDef):
            continue
        owners = ["PlotItem", "PlotWidget"] if node.name == FORWARDED else [node.name]
        for owner in owners:
            cls = getattr(pg, owner, None)
            if cls is None:
                problems.append(f"pg.{owner}")
                continue
            instance = instances.get(owner, cls)
            for member in node.body:
                if isinstance(member, ast.FunctionDef):
                    name = member.name
                elif isinstance(member, ast.AnnAssign) and isinstance(member.target, ast.Name):
                    name = member.target.id
                else:
                    continue
                if not hasattr(instance, name):
                    problems.append(f"pg.{owner}.{name}")
                elif isinstance(member, ast.FunctionDef):
                    # The instance's: PlotWidget sets PlotItem's methods on itself when made.
                    real = getattr(instance, name)
                    problems += [
                        f"pg.{owner}.{name}({p}=...)" for p in _missing_parameters(member, real)
                    ]
    return problems


def test_the_stub_declares_only_what_pyqtgraph_has(qtbot) -> None:
    instances = _instances()
    qtbot.addWidget(instances["PlotWidget"])
    assert stub_problems(STUB, instances) == [], f"pyqtgraph {pg.__version__}"


def test_the_check_sees_a_member_or_a_parameter_pyqtgraph_lacks(qtbot, tmp_path: Path) -> None:
    instances = _instances()
    qtbot.addWidget(instances["PlotWidget"])
    stub = tmp_path / "__init__.pyi"
    text = STUB.read_text(encoding="utf-8")
    text = text.replace(
        "    def setText(self, text: str, color: object = None) -> None: ...",
        "    def setText(self, text: str, colour: object = None) -> None: ...\n"
        "    def setTextSize(self, size: int) -> None: ...",
    )
    text = text.replace("    def getViewBox(self)", "    def getViewbox(self)")
    stub.write_text(text, encoding="utf-8")
    assert sorted(stub_problems(stub, instances)) == [
        "pg.PlotItem.getViewbox",
        "pg.PlotWidget.getViewbox",
        "pg.ScatterPlotItem.getViewbox",
        "pg.TextItem.setText(colour=...)",
        "pg.TextItem.setTextSize",
    ]
