"""The dock's one-line readout of the newest sample and the server it came from."""

from __future__ import annotations

import math

from PySide6.QtCore import QCoreApplication


# The words keep the context they were translated under (the panel's): lupdate reads the
# context only when it is written out in each call.
def describe(row: list[float]) -> str:
    """'KV 45% · running 12 · waiting 3 · preemptions 2' from a row (t_s, KV %, ...)."""
    parts = []
    if not math.isnan(row[1]):
        parts.append(QCoreApplication.translate("ServerMetricsPanel", "KV {0:.0f}%").format(row[1]))
    if not math.isnan(row[2]):
        parts.append(
            QCoreApplication.translate("ServerMetricsPanel", "running {0:.0f}").format(row[2])
        )
    if not math.isnan(row[3]):
        parts.append(
            QCoreApplication.translate("ServerMetricsPanel", "waiting {0:.0f}").format(row[3])
        )
    if not math.isnan(row[4]):
        parts.append(
            QCoreApplication.translate("ServerMetricsPanel", "preemptions {0:.0f}").format(row[4])
        )
    if not parts:
        return QCoreApplication.translate("ServerMetricsPanel", "server metrics: no known gauges")
    return " · ".join(parts)


def server_label(server: str, kv_capacity: int | None = None) -> str:
    """The server kind (a serverstats.SERVER_LABELS key) in words, with its KV pool if known."""
    labels = {
        "vllm": QCoreApplication.translate("ServerMetricsPanel", "vLLM (V1 metric names)"),
        "vllm-legacy": QCoreApplication.translate(
            "ServerMetricsPanel", "vLLM (legacy V0 metric names)"
        ),
        "sglang": QCoreApplication.translate("ServerMetricsPanel", "SGLang"),
        "llamacpp": QCoreApplication.translate("ServerMetricsPanel", "llama.cpp server"),
        "tgi": QCoreApplication.translate("ServerMetricsPanel", "Text Generation Inference"),
        "unknown": QCoreApplication.translate(
            "ServerMetricsPanel", "unrecognised Prometheus exporter"
        ),
    }
    label = labels.get(server, server)
    if kv_capacity:
        pool = QCoreApplication.translate("ServerMetricsPanel", "KV pool {0:,} tokens")
        label += " · " + pool.format(kv_capacity)
    return label
