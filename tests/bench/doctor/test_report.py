"""The doctor's sentences as templates: English output rebuilt from them, nested phrases."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

from app.bench.doctor.report import LIST_SEPARATOR, msg, verbatim
from app.bench.doctor.run import CHECK_IDS, Check, DoctorReport, DoctorTarget, Msg, diagnose
from app.sim.embedded import RunningSim

KEY = "sk-tpot-right-key-0123456789abcd"


def run(base_url: str, **kw: object) -> DoctorReport:
    kw.setdefault("model", "qwen2.5-7b")
    target = DoctorTarget(base_url, **kw)  # type: ignore[arg-type]
    return asyncio.run(diagnose(target, timeout_s=3))


def assert_built_from_templates(report: DoctorReport) -> None:
    assert [c.id for c in report.checks] == list(CHECK_IDS)
    for check in report.checks:
        assert check.detail_template, check  # no sentence bypasses the templates
        assert check.detail_msg.render() == check.detail
        assert check.fix_msg.render() == check.fix
        assert bool(check.fix_template) == bool(check.fix)


def test_render_nests_phrases_and_lists() -> None:
    problems = [msg("a trailing {what}", what=msg("space")), msg("quotes around it")]
    template = "the key has {problems}; {n:,} tokens{extra}"
    m = msg(template, problems=problems, n=84896, extra="")
    assert m.render() == "the key has a trailing space, quotes around it; 84,896 tokens"
    zh = {
        template: "密钥的问题：{problems}；{n:,} 个 token{extra}",
        "a trailing {what}": "末尾多了一个{what}",
        "space": "空格",
        "quotes around it": "两边带了引号",
        LIST_SEPARATOR: "、",
    }
    assert (
        m.render(lambda t: zh.get(t, t))
        == "密钥的问题：末尾多了一个空格、两边带了引号；84,896 个 token"
    )


def test_a_translation_that_breaks_a_placeholder_falls_back_to_english() -> None:
    m = msg("POST {url} answered HTTP {status}", url="http://h/v1", status=200)
    assert m.render(lambda t: "POST {adresse} 返回 HTTP {status}") == (
        "POST http://h/v1 answered HTTP 200"
    )
    assert verbatim("a {brace} stays").render(lambda t: t) == "a {brace} stays"


def test_hand_made_check_translates_as_its_text() -> None:
    check = Check("body", "fail", "as written", "do this")
    assert check.detail_msg.render(str.upper) == "as written"
    assert check.fix_msg.render(str.upper) == "do this"


def test_checks_against_the_simulator_are_built_from_templates(
    sim: RunningSim, make_sim: Callable[..., RunningSim]
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    refused = run(f"http://127.0.0.1:{port}")
    assert refused.check("reachable").detail_template == (
        "nothing is listening at {host} (connection refused)"
    )
    assert refused.check("reachable").detail_args == {"host": f"127.0.0.1:{port}"}
    assert refused.check("auth").detail_args["why"] == Msg("the server could not be reached")
    assert_built_from_templates(refused)

    assert_built_from_templates(run(sim.base_url))
    assert_built_from_templates(run(sim.root_url + "/v1", endpoint="/v1/chat/completions"))
    assert_built_from_templates(run(sim.base_url, model="no-such-model"))

    wrong = "sk-tpot-wrong-key-9999999999wxyz "
    keyed = make_sim(api_key=KEY, disable_metrics=True)
    report = run(keyed.base_url, api_key=wrong, key_source="from $MY_KEY")
    assert_built_from_templates(report)
    auth = report.check("auth")
    assert auth.detail == (
        "HTTP 401: the server rejected Authorization: Bearer sk-…wxyz␠ (from $MY_KEY); "
        "the key has a trailing space"
    )
    assert wrong.strip() not in repr(auth.detail_args) and wrong[3:-5] not in repr(auth.detail_args)

    no_usage = make_sim(no_stream_usage=True)
    assert_built_from_templates(run(no_usage.base_url))
