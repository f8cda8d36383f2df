"""A sweep past this machine's saved client ceiling: the Sweep tab says so before it starts and
keeps it in view, and each point's file records how close it ran to the ceiling."""

from __future__ import annotations

from app.bench.selftest.decide import Ceiling, Limits
from app.bench.selftest.store import save_ceiling
from app.profiles import Target
from app.ui.panels.sweep.panel import SweepPanel
from tests.documents import document


def _panel(qtbot, base_url: str, root) -> SweepPanel:  # type: ignore[no-untyped-def]
    panel = SweepPanel(lambda: Target("Built-in simulator", base_url, "chat", ""))
    qtbot.addWidget(panel)
    panel.form.results_root.setText(str(root))
    panel.form.dataset.setCurrentIndex(panel.form.dataset.findData("random"))
    panel.form.input_len.setValue(16)
    panel.form.output_len.setValue(4)
    panel.form.rates.setText("inf")
    panel.form.num_prompts.setValue(4)
    panel.form.label.setText("t")
    return panel


def test_sweep_past_the_ceiling_warns_and_records_it(qtbot, sim, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", str(tmp_path / "config"))
    save_ceiling(0, Ceiling(2, 50.0, "limit", Limits()))
    panel = _panel(qtbot, sim.base_url, tmp_path / "runs")
    panel.form.concurrencies.setText("1, 4")
    assert panel.run()
    note = panel.ceiling_note.text()
    assert not panel.ceiling_note.isHidden()
    assert note.startswith("⚠ This sweep runs up to 4 streams, past this machine's client")
    assert "ceiling of 2 streams in one process" in note
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=60_000)
    assert panel.last_error == ""
    block = document(panel.run_dir / "t_rateinf_conc4.json")["tpotbench"]["client_ceiling"]
    assert (block["streams"], block["ceiling"], block["ratio"]) == (4, 2, 2.0)

    panel.form.concurrencies.setText("1, 2")  # within the ceiling: no warning
    assert panel.run()
    assert panel.ceiling_note.isHidden()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=60_000)
