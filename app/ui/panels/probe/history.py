"""The Probe tab's history: this session's probes, newest last; click one to show it again."""

from __future__ import annotations

from PySide6.QtWidgets import QListWidget, QListWidgetItem

from app.ui.panels.endpoints.profile_list import display_name
from app.ui.panels.probe.outcome import ProbeHistoryEntry
from app.ui.panels.probe.readouts import fmt


class ProbeHistory(QListWidget):
    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("probeHistory")
        self.setWordWrap(True)  # a one-line entry is wider than the list
        self.entries: list[ProbeHistoryEntry] = []

    def add(self, entry: ProbeHistoryEntry) -> None:
        """Append and select an entry without emitting currentRowChanged (it is shown already)."""
        self.entries.append(entry)
        item = QListWidgetItem(self.label(entry))
        item.setToolTip(item.text())
        self.blockSignals(True)
        self.addItem(item)
        self.setCurrentItem(item)
        self.blockSignals(False)

    def retranslate(self) -> None:
        self.setToolTip(self.tr("Earlier probes in this session; click one to show it"))
        for row, entry in enumerate(self.entries):
            item = self.item(row)
            if item is not None:
                item.setText(self.label(entry))
                item.setToolTip(item.text())

    def label(self, entry: ProbeHistoryEntry) -> str:
        o = entry.outcome
        profile = display_name(entry.profile)
        if not o.ok:
            return self.tr("{when}  {profile}: failed ({kind})").format(
                when=entry.when, profile=profile, kind=o.error_kind or "?"
            )
        return self.tr("{when}  {profile}: TTFT {ttft} ms · TPOT {tpot} ms · {n} tok").format(
            when=entry.when,
            profile=profile,
            ttft=fmt(o.ttft_ms, 0),
            tpot=fmt(o.tpot_ms, 1),
            n=o.output_tokens,
        )
