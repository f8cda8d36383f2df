"""The Roofline panel's figures in words: floor, best single stream, KV capacity, ridge, bytes
per step and MBU, each a label text and a tooltip that shows the arithmetic. The strings keep
the "RooflinePanel" translation context the panel has always used."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.roofline.decode_step import kv_bytes_per_token, weight_bytes_resident
from app.roofline.scenario import Scenario
from app.ui.panels.roofline.whatif import BYTES_COLORS, gigabytes

# (text, tooltip) of one label.
Figure = tuple[str, str]


def _ms(s: float) -> str:
    return f"{s * 1e3:.2f} ms"


def floor(s: Scenario) -> Figure:
    floor, step = s.floor(1), s.step(1)
    bound = (
        QCoreApplication.translate("RooflinePanel", "memory-bound")
        if floor.bound == "memory"
        else QCoreApplication.translate("RooflinePanel", "compute-bound")
    )
    text = QCoreApplication.translate("RooflinePanel", "Batch-1 floor: <b>{v:.2f} ms</b>")
    tip = QCoreApplication.translate(
        "RooflinePanel",
        "floor = max(bytes ÷ bandwidth, FLOPs ÷ peak)\n"
        "= max({b} ÷ {bw:.0f} GB/s, {f:.1f} GFLOP ÷ {p:.1f} TFLOP/s)\n"
        "= max({m}, {c}) → {bound}\n"
        "context {ctx} tokens; the input embedding is gathered, not read whole",
    )
    return text.format(v=floor.seconds * 1e3), tip.format(
        b=gigabytes(step.total_bytes),
        bw=s.gpu.bandwidth_bytes_per_s / 1e9,
        f=s.flops(1) / 1e9,
        p=s.peak_flops() / 1e12,
        m=_ms(floor.memory_s),
        c=_ms(floor.compute_s),
        bound=bound,
        ctx=s.context,
    )


def best_speed(s: Scenario) -> Figure:
    seconds = s.floor(1).seconds
    text = QCoreApplication.translate("RooflinePanel", "Best single stream: <b>{v:.1f} tok/s</b>")
    tip = QCoreApplication.translate("RooflinePanel", "best tok/s = 1 ÷ batch-1 floor = 1 ÷ {f}")
    return text.format(v=1 / seconds), tip.format(f=_ms(seconds))


def kv_capacity(s: Scenario) -> Figure:
    cap = s.capacity()
    text = QCoreApplication.translate("RooflinePanel", "KV capacity: <b>{t:,} tokens</b>").format(
        t=cap.tokens
    )
    if s.context > 0:
        text += QCoreApplication.translate("RooflinePanel", " ({n} seqs × {ctx})").format(
            n=s.max_batch(), ctx=s.context
        )
    tip = QCoreApplication.translate(
        "RooflinePanel",
        "num_gpu_blocks = (memory × 0.987 visible × utilisation {u} − weights {w} − "
        "activation/non-torch reserve) ÷ (block {bs} × {kv:,.0f} B per token)\n"
        "= {blocks:,} blocks = {t:,} tokens; KV bytes per token = 2 × {L} layers × "
        "{h} KV heads × {d} head dim × {e:g} B",
    )
    return text, tip.format(
        u=s.gpu_memory_utilization,
        w=gigabytes(weight_bytes_resident(s.model, s.fmt)),
        bs=cap.block_size,
        kv=kv_bytes_per_token(s.model, s.kv),
        blocks=cap.num_gpu_blocks,
        t=cap.tokens,
        L=s.model.num_layers,
        h=s.model.num_kv_heads,
        d=s.model.head_dim,
        e=s.kv.bytes,
    )


def ridge(s: Scenario) -> Figure:
    text = QCoreApplication.translate(
        "RooflinePanel", "Ridge: <b>{r:.0f} FLOP/B</b> (decode: {i:.1f})"
    )
    tip = QCoreApplication.translate(
        "RooflinePanel",
        "ridge = peak ÷ bandwidth = {p:.1f} TFLOP/s ÷ {bw:.0f} GB/s\n"
        "batch-1 decode intensity = {f:.1f} GFLOP ÷ {b} = {i:.2f} FLOP/byte",
    )
    return text.format(r=s.ridge(), i=s.intensity(1)), tip.format(
        p=s.peak_flops() / 1e12,
        bw=s.gpu.bandwidth_bytes_per_s / 1e9,
        f=s.flops(1) / 1e9,
        b=gigabytes(s.step(1).total_bytes),
        i=s.intensity(1),
    )


def step_bytes(s: Scenario) -> tuple[list[tuple[str, float]], str, str]:
    """What one batch-1 decode step reads: (name, bytes) parts for the bar, text, tooltip."""
    step = s.step(1)
    parts = [
        (QCoreApplication.translate("RooflinePanel", "weights"), step.weights_bytes),
        (QCoreApplication.translate("RooflinePanel", "LM head"), step.lm_head_bytes),
        (QCoreApplication.translate("RooflinePanel", "KV"), step.kv_bytes),
    ]
    text = QCoreApplication.translate("RooflinePanel", "Bytes per step {total}: ").format(
        total=gigabytes(step.total_bytes)
    ) + " · ".join(
        f"<span style='color:{c}'>■</span> {name} {gigabytes(v)}"
        for (name, v), c in zip(parts, BYTES_COLORS, strict=True)
    )
    tip = QCoreApplication.translate(
        "RooflinePanel",
        "weights: transformer layers in {fmt} ({bpp:.3f} B per weight incl. scales)\n"
        "LM head: {V:,} × {h:,} read whole every step\n"
        "KV: batch 1 × {ctx} tokens × {kv:,.0f} B per token",
    ).format(
        fmt=s.fmt.name,
        bpp=s.fmt.bytes_per_param,
        V=s.model.vocab_size,
        h=s.model.hidden_size,
        ctx=s.context,
        kv=kv_bytes_per_token(s.model, s.kv),
    )
    return parts, text, tip


def mbu(s: Scenario, latest: tuple[float, float, str] | None) -> Figure:
    """MBU of the latest measurement (batch, TPOT ms, what it was); a hint when none yet."""
    if latest is None:
        return QCoreApplication.translate(
            "RooflinePanel", "MBU: run a probe or sweep"
        ), QCoreApplication.translate(
            "RooflinePanel", "MBU = bytes per step ÷ measured TPOT ÷ peak bandwidth"
        )
    batch, ms, what = latest
    value = s.mbu(batch, ms)
    text = QCoreApplication.translate(
        "RooflinePanel", "MBU: <b>{v:.1f} %</b> at {ms:.1f} ms ({what})"
    ).format(v=value * 100, ms=ms, what=what)
    tip = QCoreApplication.translate(
        "RooflinePanel",
        "MBU = bytes per step ÷ measured TPOT ÷ peak bandwidth\n"
        "= {b} ÷ {ms:.2f} ms ÷ {bw:.0f} GB/s = {v:.1f} %\n"
        "MFU = {f:.1f} GFLOP ÷ {ms:.2f} ms ÷ {p:.1f} TFLOP/s = {u:.2f} %",
    ).format(
        b=gigabytes(s.step(max(1, round(batch))).total_bytes),
        ms=ms,
        bw=s.gpu.bandwidth_bytes_per_s / 1e9,
        v=value * 100,
        f=s.flops(max(1, round(batch))) / 1e9,
        p=s.peak_flops() / 1e12,
        u=s.achieved_flops(batch, ms) / s.peak_flops() * 100,
    )
    return text, tip
