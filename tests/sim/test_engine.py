"""The engine in real time (steps at deadlines, stop, lateness) and the step cost model."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from app.sim.config import SimConfig
from app.sim.engine import Engine
from app.sim.sequence import Emission, SimRequest
from app.sim.timing import StepCostModel, StepWork


class Sink:
    def __init__(self) -> None:
        self.tokens: list[tuple[str, str | None]] = []

    def prepare(self, out: Emission) -> None:
        self.tokens.append((out.reasoning + out.content, out.finish_reason))

    def flush(self, deadline_ns: int) -> None:
        pass

    def aborted(self, reason: str) -> None:
        pass


def make_engine(blocks: int, *, seqs: int = 256, budget: int = 2048) -> Engine:
    return Engine(
        step_seconds=lambda work: 0.001,
        num_gpu_blocks=blocks,
        block_size=16,
        max_num_seqs=seqs,
        max_num_batched_tokens=budget,
    )


def request(name: str, prompt: int, target: int) -> SimRequest:
    return SimRequest(name, prompt, target, "length", Sink(), seed=1)


def test_reference_case_has_5306_blocks() -> None:
    assert StepCostModel(SimConfig()).num_gpu_blocks == 5306


def test_engine_runs_in_real_time_and_stops_cleanly() -> None:
    async def scenario() -> list[tuple[str, str | None]]:
        engine = make_engine(blocks=100)
        engine.start()
        req = request("r", prompt=20, target=4)
        engine.submit(req)
        deadline = time.monotonic() + 60  # a hang guard; the four steps take milliseconds
        while not req.finished and time.monotonic() < deadline:
            await asyncio.sleep(0.002)
        await engine.stop()
        return req.sink.tokens  # type: ignore[attr-defined,no-any-return]

    tokens = asyncio.run(scenario())
    assert len(tokens) == 4


def test_step_cost_is_the_memory_roofline_plus_overhead() -> None:
    model = StepCostModel(
        SimConfig(bandwidth_efficiency=0.5, compute_efficiency=0.5, step_overhead_ms=1.0)
    )
    # Qwen2.5-7B BF16 streams 14,141,238,272 weight bytes per step (no input embedding table);
    # at 936 GB/s x 0.5 that is 30.216 ms, plus 1 ms overhead. One sequence adds its token's
    # elementwise activation traffic (5,246,976 B) and its logits' sampling (4,561,920 B),
    # 20.96 us at 468 GB/s, and 15 us of engine-core CPU: 31.252 ms.
    serial = (5_246_976 + 4_561_920) / 468e9 + 15e-6
    step = model.step_seconds(StepWork(decode_contexts=(0,)))
    assert step == pytest.approx(0.031216 + serial, abs=2e-6)
    assert step == pytest.approx(0.031252, abs=2e-6)
    # 1,000 cached tokens add 1,000 x 57,344 KV bytes = 0.1225 ms at 468 GB/s.
    one_k = model.step_seconds(StepWork(decode_contexts=(1000,)))
    assert one_k - step == pytest.approx(0.0001225, abs=3e-6)
    assert model.step_seconds(StepWork()) == 0.0


def test_big_prefill_is_compute_bound() -> None:
    model = StepCostModel(SimConfig(compute_efficiency=0.5, step_overhead_ms=0.0))
    seconds = model.step_seconds(StepWork(prefill_chunks=((2048, 0),)))
    # 2 x 6.53e9 (layers) x 2048 + the LM head once + attention = 2.76e13 FLOPs at
    # 35.5 TFLOP/s is ~0.777 s, far above the 17.6 ms memory time, so compute decides; the
    # elementwise kernels stream 2,048 x 5.247 MB = 10.75 GB on top (13.35 ms at 805 GB/s).
    assert 0.785 < seconds < 0.795


def test_serial_terms_grow_with_tokens_and_sequences_by_hand() -> None:
    # Ten decodes over 400 tokens each and one 100-token prompt that completes. The GEMMs are
    # compute-bound: 10 x 14,141,238,272 + the prompt's 1.3062e12 FLOPs (prefill_flops less
    # its attention) at 56.8 TFLOP/s = 25.486 ms against the weights' 17.568 ms. Then the
    # attention, with a prompt in the batch: the decodes' 4,000 cached tokens are read once
    # per query head (x 7) and the prompt's 100 written, 28,100 x 57,344 B at 804.96 GB/s =
    # 2.002 ms, above its 64-row tiles' 1.048e11 FLOPs (1.845 ms).
    model = StepCostModel(SimConfig())
    work = StepWork(decode_contexts=(400,) * 10, prefill_chunks=((100, 0),), samples=11)
    base = StepCostModel(SimConfig(engine_us_per_seq=0.0))
    # the serial part on its own: 110 tokens x 5,246,976 B + 11 samples x 4,561,920 B at
    # 804.96 GB/s = 0.7170 + 0.0623 ms, and 11 sequences x 15 us = 0.165 ms
    serial_bytes = (110 * 5_246_976 + 11 * 4_561_920) / 804.96e9
    assert model.step_seconds(work) - base.step_seconds(work) == pytest.approx(165e-6, abs=1e-9)
    roofline = 0.025486 + 0.002002
    assert base.step_seconds(work) == pytest.approx(roofline + 0.002 + serial_bytes, abs=2e-6)


def test_a_decode_step_above_the_ridge_is_set_by_its_skinny_gemms_by_hand() -> None:
    # Defaults: 14,141,238,272 weight bytes at 936 GB/s x 0.86 = 17.568 ms. 64 decodes run
    # 64 x 14,141,238,272 FLOPs of weight GEMMs at 71 TFLOP/s x 0.35 = 36.420 ms: above the
    # bytes and above all FLOPs at the prefill rate (x 0.8: 15.93 ms), so they set the step.
    # On top: 2 ms overhead, 64 tokens' activations and samplings, 64 x 15 us of engine CPU.
    model = StepCostModel(SimConfig())
    serial = 64 * (5_246_976 + 4_561_920) / 804.96e9 + 64 * 15e-6
    step = model.step_seconds(StepWork(decode_contexts=(0,) * 64))
    assert step == pytest.approx(0.036420 + 0.002 + serial, abs=2e-6)
    # 16 decodes stay under the ridge: their GEMMs (9.105 ms) hide under the weight read.
    serial = 16 * (5_246_976 + 4_561_920) / 804.96e9 + 16 * 15e-6
    step = model.step_seconds(StepWork(decode_contexts=(0,) * 16))
    assert step == pytest.approx(0.017568 + 0.002 + serial, abs=2e-6)
    # With a 2,048-token chunk the step's M is tall: all its FLOPs at the prefill rate decide.
    with_chunk = StepWork(decode_contexts=(0,) * 64, prefill_chunks=((1984, 0),))
    alone = StepCostModel(SimConfig(decode_compute_efficiency=1.0))
    assert model.step_seconds(with_chunk) == alone.step_seconds(with_chunk)


def test_a_prompt_in_the_batch_costs_the_decodes_their_kv_read_per_query_head_by_hand() -> None:
    # 32 decodes over 1,000 tokens each, overhead and engine CPU off. Decode-only: 14.141 GB
    # of weights + 32,000 x 57,344 B of KV at 804.96 GB/s = 19.847 ms (above the skinny
    # GEMMs' 18.210 ms), + 0.390 ms of activations and sampling. Add a 16-token prompt: the
    # GEMMs carry 48 rows, still 18.210 ms at the skinny rate; then the attention, unpacked
    # because a query is longer than one token: 32,000 x 7 + 16 tokens' KV = 12.85 GB at
    # 804.96 GB/s = 15.959 ms (its 64-row tiles' 8.2e11 FLOPs: 14.474 ms), + 0.500 ms: 34.668
    # ms. The prompt alone is a 17.68 ms step; in this batch it costs the decodes 14.4 ms,
    # at 100 tokens of context 1.7 ms: prefill interference that grows with the load.
    model = StepCostModel(SimConfig(engine_us_per_seq=0.0, step_overhead_ms=0.0))

    def cost(context: int, prompt: bool) -> float:
        chunks = ((16, 0),) if prompt else ()
        work = StepWork(decode_contexts=(context,) * 32, prefill_chunks=chunks, samples=32 + prompt)
        return model.step_seconds(work)

    assert cost(1000, False) == pytest.approx(0.020237, abs=2e-6)
    assert cost(1000, True) == pytest.approx(0.034668, abs=2e-6)
    alone = model.step_seconds(StepWork(prefill_chunks=((16, 0),)))
    assert alone == pytest.approx(0.017679, abs=2e-6)
    assert cost(100, True) - cost(100, False) == pytest.approx(0.001707, abs=2e-6)


class TimedSink(Sink):
    """Records each flush: the due time the engine passed and the clock when it came."""

    def __init__(self) -> None:
        super().__init__()
        self.flushes: list[tuple[int, int]] = []

    def flush(self, deadline_ns: int) -> None:
        self.flushes.append((deadline_ns, time.monotonic_ns()))


def test_a_steps_tokens_go_out_one_front_end_turn_apart() -> None:
    # Three requests decode in the same 10 ms steps; with 300 us per token in the front end
    # the second is due 300 us after the first and the third 600 us after it, never earlier,
    # and each keeps its place, so its gaps stay one step long.
    async def scenario() -> list[SimRequest]:
        engine = Engine(
            step_seconds=lambda work: 0.010,
            num_gpu_blocks=100,
            block_size=16,
            max_num_seqs=8,
            max_num_batched_tokens=2048,
            frontend_ns=300_000,
        )
        reqs = [SimRequest(f"r{i}", 16, 5, "length", TimedSink(), seed=i) for i in range(3)]
        for req in reqs:
            engine.submit(req)
        engine.start()
        deadline = time.monotonic() + 60  # a hang guard; the five steps take ~50 ms
        while time.monotonic() < deadline and not all(
            len(req.sink.flushes) == 5  # type: ignore[attr-defined]
            for req in reqs
        ):
            await asyncio.sleep(0.005)
        await engine.stop()
        return reqs

    reqs = asyncio.run(scenario())
    flushes = [req.sink.flushes for req in reqs]  # type: ignore[attr-defined]
    assert [len(f) for f in flushes] == [5, 5, 5]
    for step in range(5):
        dues = [f[step][0] for f in flushes]
        assert dues[1] - dues[0] == 300_000
        assert dues[2] - dues[0] == 600_000
        for due, came in (f[step] for f in flushes):
            assert came >= due  # held until its turn, not sent early
    for f in flushes:
        gaps = [b[0] - a[0] for a, b in itertools.pairwise(f)]
        assert gaps == [10_000_000] * 4
    assert [req.first_token_ns for req in reqs] == [f[0][0] for f in flushes]


class SignalSink(Sink):
    """Sets `first` when its first token went out and `done` when its last one did."""

    def __init__(self) -> None:
        super().__init__()
        self.first = asyncio.Event()
        self.done = asyncio.Event()

    def flush(self, deadline_ns: int) -> None:
        if self.tokens:
            self.first.set()
            if self.tokens[-1][1] is not None:
                self.done.set()


def test_request_admitted_behind_real_time_gets_its_first_token_after_it_arrived() -> None:
    # A busy CPU holds the event loop for 100 ms (under the 200 ms after which the engine
    # restarts its clock) while a decode step is due; a request submitted just then is planned
    # into the next step, which would begin at the missed deadline, in the past. Its first
    # token must still come after its arrival (a negative TTFT made /metrics' histogram
    # unusable under a CPU hog).
    async def scenario() -> SimRequest:
        engine = Engine(
            step_seconds=lambda work: 0.010,
            num_gpu_blocks=100,
            block_size=16,
            max_num_seqs=8,
            max_num_batched_tokens=2048,
        )
        engine.start()
        long_sink, late_sink = SignalSink(), SignalSink()
        engine.submit(SimRequest("long", 16, 1_000, "length", long_sink, seed=1))
        await asyncio.wait_for(long_sink.first.wait(), 60)  # a hang guard only
        time.sleep(0.1)  # the stall itself (the loop is held), not a wait for anything
        late = SimRequest("late", 16, 2, "length", late_sink, seed=1)
        engine.submit(late)
        await asyncio.wait_for(late_sink.done.wait(), 60)
        await engine.stop()
        return late

    late = asyncio.run(scenario())
    assert late.first_token_ns is not None
    assert late.first_token_ns > late.arrival_ns
