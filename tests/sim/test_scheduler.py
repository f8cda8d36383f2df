"""The scheduler without a clock: KV blocks, waiting, preemption, chunked prefill, the batch cap."""

from __future__ import annotations

from app.sim.scheduler import Scheduler
from app.sim.sequence import SimRequest
from tests.sim.test_engine import Sink


def make_engine(blocks: int, *, seqs: int = 256, budget: int = 2048) -> Scheduler:
    return Scheduler(
        num_gpu_blocks=blocks, block_size=16, max_num_seqs=seqs, max_num_batched_tokens=budget
    )


def request(name: str, prompt: int, target: int) -> SimRequest:
    return SimRequest(name, prompt, target, "length", Sink(), seed=1)


def test_requests_wait_when_kv_blocks_run_out() -> None:
    engine = make_engine(blocks=10)  # 160 tokens of KV
    reqs = [request(f"r{i}", prompt=60, target=5) for i in range(3)]  # 4 blocks each
    for req in reqs:
        engine.submit(req)
    outputs, work = engine.plan()
    assert engine.running == reqs[:2]
    assert list(engine.waiting) == [reqs[2]]
    assert engine.pool.free == 2
    assert work.prefill_chunks == ((60, 0), (60, 0))
    assert outputs == reqs[:2]  # a finished prefill samples the first token


def test_running_sequence_that_cannot_grow_preempts_the_newest() -> None:
    engine = make_engine(blocks=4)  # 64 tokens
    first, second = request("a", prompt=32, target=50), request("b", prompt=16, target=50)
    engine.submit(first)
    engine.submit(second)
    engine.plan()  # a: 2 blocks, b: 1 block, each samples its first token -> 1 block free
    assert engine.pool.free == 1
    assert engine.num_preemptions == 0
    # Step 2: a's 33rd token needs a 3rd block (takes the free one); b's 17th token needs a
    # 2nd block and none is left, so the newest running request (b) is preempted.
    outputs, work = engine.plan()
    assert engine.num_preemptions == 1
    assert outputs == [first]
    assert work.decode_contexts == (32,)
    assert engine.running == [first]
    assert list(engine.waiting) == [second]
    assert second.num_computed == 0 and second.blocks == 0  # recompute from scratch
    assert second.generated == 1  # but keeps the token it already produced
    assert engine.pool.free == 1
    # b now needs 2 blocks for its 17 tokens and only 1 is free: it keeps waiting.
    engine.plan()
    assert list(engine.waiting) == [second]


def test_long_prompt_is_prefilled_in_chunks_of_the_token_budget() -> None:
    engine = make_engine(blocks=1000)
    req = request("long", prompt=3000, target=3)
    engine.submit(req)
    outputs, work = engine.plan()
    assert work.prefill_chunks == ((2048, 0),)
    assert outputs == []
    outputs, work = engine.plan()
    assert work.prefill_chunks == ((952, 2048),)
    assert outputs == [req]
    assert req.generated == 1


def test_decode_and_new_prefill_share_a_step() -> None:
    engine = make_engine(blocks=1000)
    old = request("old", prompt=100, target=10)
    engine.submit(old)
    engine.plan()
    new = request("new", prompt=50, target=10)
    engine.submit(new)
    outputs, work = engine.plan()
    assert work.decode_contexts == (100,)
    assert work.prefill_chunks == ((50, 0),)
    assert outputs == [old, new]


def test_max_num_seqs_caps_the_batch() -> None:
    engine = make_engine(blocks=1000, seqs=2)
    for i in range(3):
        engine.submit(request(f"r{i}", prompt=10, target=5))
    engine.plan()
    assert len(engine.running) == 2
    assert len(engine.waiting) == 1


def test_finished_request_frees_its_blocks() -> None:
    engine = make_engine(blocks=100)
    req = request("r", prompt=20, target=2)
    engine.submit(req)
    engine.plan()
    assert engine.pool.free == 98
    engine.plan()
    assert req.finished
    assert engine.pool.free == 100
    assert [t[1] for t in req.sink.tokens] == [None, "length"]  # type: ignore[attr-defined]
