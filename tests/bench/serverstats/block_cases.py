"""The server-metrics block of a point file in every shape it takes, from real /metrics pages
of the simulator (captured before, during and after a load; in pages/) and the smaller pages of
other servers, scraped through a page server on 127.0.0.1 with a fixed clock: the golden file
(block_golden.json) was written by the dict-built block, before the types."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from app.bench.serverstats.scrape import MetricsScraper, result_block
from app.bench.sweep import point_document
from tests.bench.serverstats.page_server import Pages, serving
from tests.bench.serverstats.test_parse import LLAMACPP_PAGE, SGLANG_PAGE, TGI_PAGE

PAGES = Path(__file__).with_name("pages")
GOLDEN = Path(__file__).with_name("block_golden.json")


def sim_page(name: str) -> str:
    return (PAGES / f"sim_{name}.txt").read_text(encoding="utf-8")


def scraped(pages: list[str], url: str | None = None) -> MetricsScraper:
    """A scraper that has scraped each page once, 0.25 s apart on a fixed clock."""
    ticks = iter(range(0, 10**12, 250_000_000))

    async def scrape(target: str) -> MetricsScraper:
        scraper = MetricsScraper(target, interval_s=3600, clock=lambda: next(ticks))
        await scraper.start(timer=False)
        for _ in pages[1:]:
            await scraper.scrape_now()
        await scraper.stop()
        return scraper

    if url is not None:
        return asyncio.run(scrape(url))
    with serving(Pages(pages)) as base:
        return asyncio.run(scrape(base + "/metrics"))


class _FailingSummary(MetricsScraper):
    def summary(self, *args: Any, **kwargs: Any) -> Any:
        raise ArithmeticError("a page the summary cannot sum")


def _summary_failed() -> Any:
    with serving(Pages([sim_page("before")])) as base:
        scraper = _FailingSummary(base + "/metrics", interval_s=3600)

        async def scrape() -> None:
            await scraper.start(timer=False)
            await scraper.stop()

        asyncio.run(scrape())
    metrics = SimpleNamespace(completed=0, input_lens=[], output_lens=[], error_kinds=[])
    return point_document._server_block(scraper, metrics)  # type: ignore[arg-type]


CLIENT = {"mean_ttft_ms": 71.23456, "mean_itl_ms": 9.87654321, "mean_e2el_ms": 345.6789}
LLAMA_SECONDS = "llamacpp:prompt_seconds_total {}\nllamacpp:prompt_tokens_total {}\n"


def cases(as_json: Callable[[Any], Any]) -> dict[str, Any]:
    """Each case's block as the point file holds it (`as_json`: the block as JSON)."""
    before, during, after = sim_page("before"), sim_page("during"), sim_page("after")
    out: dict[str, Any] = {}
    out["sim_load"] = result_block(
        scraped([before, during, during, after]), context_len=4096, client=CLIENT
    )
    out["sim_idle_no_client"] = result_block(scraped([before, after]))
    out["sim_restarted"] = result_block(scraped([after, during, before]), 600, CLIENT)
    out["sim_one_scrape"] = result_block(scraped([during]), context_len=0, client={})
    llama = [
        LLAMACPP_PAGE + LLAMA_SECONDS.format(1.0, 100),
        LLAMACPP_PAGE + LLAMA_SECONDS.format(3.0, 4100),
    ]
    out["llamacpp"] = result_block(scraped(llama), 2048, CLIENT)
    out["sglang"] = result_block(scraped([SGLANG_PAGE, SGLANG_PAGE]), 1000, CLIENT)
    out["tgi"] = result_block(scraped([TGI_PAGE]), None, CLIENT)
    out["unreachable"] = result_block(scraped([], url="http://127.0.0.1:9/metrics"))
    out["summary_failed"] = _summary_failed()
    return {name: _fixed_port(as_json(block)) for name, block in out.items()}


def _fixed_port(block: dict[str, Any]) -> dict[str, Any]:
    """The block with its page server's port spelled PORT (a new one each run)."""
    url = re.sub(r":\d+/metrics$", ":PORT/metrics", block["metrics_url"])
    return {**block, "metrics_url": url}
