"""The editor's Model field: a model id typed, or picked from the endpoint's /v1/models."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QPushButton, QSizePolicy, QWidget

from app.bench.http.models import MODELS_DEADLINE_S
from app.ui.retranslate import is_language_change


def models_url(base_url: str) -> str:
    """The /v1/models URL for a base URL, through the engine's own URL rules."""
    from app.bench.http.endpoint import resolve_endpoint

    return resolve_endpoint(base_url).models_url


async def list_models(
    base_url: str,
    api_key: str,
    headers: dict[str, str],
    verify_tls: bool,
    *,
    request_timeout_s: float | None = MODELS_DEADLINE_S,
) -> list[str]:
    """Model ids from GET /v1/models (bounded in size and time by the engine's client);
    raises ValueError with one readable sentence."""
    from app.bench.http.endpoint import EndpointError
    from app.bench.http.models import ModelsError, fetch_models

    try:
        url = models_url(base_url)
    except EndpointError as exc:
        raise ValueError(str(exc)) from None
    try:
        listing = await fetch_models(
            url,
            api_key=api_key or None,
            headers=headers,
            verify_tls=verify_tls,
            request_timeout_s=request_timeout_s,
        )
    except ModelsError as exc:
        raise ValueError(f"Could not reach {url}: {exc.kind}.") from None
    if listing.status in (401, 403):
        raise ValueError(f"{url} answered {listing.status}: check the API key.")
    if listing.status != 200:
        raise ValueError(f"{url} answered HTTP {listing.status}.")
    if listing.ids is None:
        raise ValueError(f"{url} did not return a JSON model list.")
    return listing.ids


class ModelField(QWidget):
    """An editable model id with a List models button; the form asks the endpoint.

    Signals:
        listRequested(): the user pressed List models.
    """

    listRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = QComboBox()
        self.combo.setEditable(True)
        self.combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.button = QPushButton()
        self.button.clicked.connect(self.listRequested)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.combo, 1)
        row.addWidget(self.button)
        self.retranslate()

    def retranslate(self) -> None:
        line = self.combo.lineEdit()
        assert line is not None  # the combo is editable (set in __init__)
        line.setPlaceholderText(self.tr("model id"))
        self.button.setText(self.tr("List models"))
        self.button.setToolTip(self.tr("Ask the endpoint's /v1/models which models it serves"))

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def text(self) -> str:
        return self.combo.currentText()

    def set_text(self, model: str) -> None:
        """Show one model id and forget any listed ones (another profile was loaded)."""
        self.combo.clear()
        self.combo.setEditText(model)

    def offer(self, models: list[str]) -> None:
        """The endpoint's models to pick from; the typed id stays if it is among them."""
        typed = self.combo.currentText()
        self.combo.clear()
        self.combo.addItems(models)
        self.combo.setEditText(typed if typed in models or not models else models[0])
