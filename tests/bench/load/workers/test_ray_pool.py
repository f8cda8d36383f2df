"""Load workers as Ray actors on a local cluster started by the test (loopback, 2 CPUs, no
dashboard), against the simulator: every request once, on the driver's clock."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import pytest

from app.bench.http.endpoint import resolve_endpoint
from app.bench.http.request import RequestSpec
from app.bench.load.arrivals import LoadState, arrival_offsets
from app.bench.load.workers.driver import run_workers
from app.bench.load.workers.messages import WorkerJob
from app.bench.load.workers.plan import split_load
from app.sim.embedded import RunningSim

ray = pytest.importorskip(
    "ray", reason="Ray is not installed: pip install 'tpotbench[distributed]' runs this test"
)


@pytest.fixture(scope="module")
def local_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    # Ray writes an auth token under ~/.ray: keep it out of the user's home.
    home = tmp_path_factory.mktemp("ray-home")
    saved = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
    )
    try:
        yield
    finally:
        ray.shutdown()
        if saved is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = saved


@pytest.mark.timeout(300)
def test_two_ray_actors_send_every_request_once(local_cluster: None, sim: RunningSim) -> None:
    from app.bench.load.workers.ray_pool import RayPool

    resolved = resolve_endpoint(sim.base_url, api="chat", model="qwen2.5-7b")
    specs = [
        RequestSpec("ray " * 10, 10, 12, model="qwen2.5-7b", request_id=f"ray{i}")
        for i in range(10)
    ]
    jobs = [
        WorkerJob(share=s, specs=[specs[i] for i in s.indices], resolved=resolved)
        for s in split_load(arrival_offsets(10, 40.0, seed=2), 4, 2)
    ]
    state = LoadState()
    pool = RayPool("auto")

    async def main():
        return await run_workers(pool, jobs, cancel=asyncio.Event(), state=state)

    out = asyncio.run(main())
    assert [r.request_id for r in out.load.records] == [f"ray{i}" for i in range(10)]
    assert all(r.ok and r.output_tokens == 12 for r in out.load.records)
    assert set(out.cpu_s) == {0, 1} and out.lost == {}
    assert state.completed == 10
    # the actors' clock readings were moved onto this process's clock: the point starts at
    # the barrier and every request's times are in order
    assert out.load.first_send_ns >= out.load.origin_ns
    assert all(r.send_ns < r.first_token_ns <= r.end_ns for r in out.load.records)
