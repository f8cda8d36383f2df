"""The doctor's detail and fix sentences in the UI language, from the engine's English templates."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.bench.doctor.report import VERBATIM, Check, Msg
from app.ui.panels.doctor.window_words import WINDOW_WORDS, window_template
from app.ui.translate_noop import QT_TRANSLATE_NOOP

CONTEXT = "DoctorMessages"

# Every template the engine renders, listed literally so that pyside6-lupdate extracts it.
# A template the engine uses and this list lacks is shown in English (a test catches it).
TEMPLATES: frozenset[str] = frozenset(
    (
        # The engine's sentences and phrases (app/bench/doctor/).
        QT_TRANSLATE_NOOP("DoctorMessages", "POST {url} got no answer, so the path is unconfirmed"),
        QT_TRANSLATE_NOOP("DoctorMessages", "POST {url}: {error}"),
        QT_TRANSLATE_NOOP("DoctorMessages", "{title} for {host}: {message}"),
        QT_TRANSLATE_NOOP("DoctorMessages", "{host} answered in {ms:.0f} ms"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages", "POST {url} is redirected (HTTP {status}) to {location}"
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Use the URL it redirects to as the base URL (often https:// instead of http://): "
            "clients do not send a POST body on through a redirect.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "not run: {why}"),
        QT_TRANSLATE_NOOP("DoctorMessages", "nothing is listening at {host} (connection refused)"),
        QT_TRANSLATE_NOOP("DoctorMessages", "the server could not be reached"),
        QT_TRANSLATE_NOOP("DoctorMessages", "authentication failed"),
        QT_TRANSLATE_NOOP("DoctorMessages", "the non-streaming request failed"),
        QT_TRANSLATE_NOOP("DoctorMessages", "no completions endpoint answered"),
        QT_TRANSLATE_NOOP("DoctorMessages", "the endpoint redirects"),
        QT_TRANSLATE_NOOP("DoctorMessages", "the model is not served"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Pass one of the served ids with --model; vLLM serves the name given by "
            "--served-model-name (e.g. --served-model-name qwen2.5-7b).",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "'{model}' is served (served ids: {served})"),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP {status}: {error}{retry_after}"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "{events} SSE events, {content} with text, finish_reason={finish}",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages", "{seen}, [DONE] seen, usage: {tokens} completion tokens"
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Server-side charts (KV cache, queues) stay empty; client-side figures are unaffected.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "{server} at {url}{capacity}{fit}"),
        QT_TRANSLATE_NOOP("DoctorMessages", "'{model}' is not served; served ids: {served}"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages", "'{model}' accepted (the server publishes no model list)"
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "no SSE events (content-type {content_type})"),
        QT_TRANSLATE_NOOP("DoctorMessages", "{seen}; {malformed} not valid JSON"),
        QT_TRANSLATE_NOOP("DoctorMessages", "{seen}; no [DONE]"),
        QT_TRANSLATE_NOOP("DoctorMessages", "no Prometheus metrics at {url} (HTTP {status})"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Server-side charts (KV cache, queues) stay empty; client-side figures are unaffected. "
            "Gateways usually hide /metrics.",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "; KV cache {blocks:,} blocks × {block_size} = {tokens:,} tokens",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "; {n} requests of the full {context:,}-token context fit at once",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "no model given and the server lists none"),
        QT_TRANSLATE_NOOP("DoctorMessages", "'{model}' is unknown: {error}"),
        QT_TRANSLATE_NOOP("DoctorMessages", "'choices' present; reply: {reply!r}"),
        QT_TRANSLATE_NOOP("DoctorMessages", "it is not JSON"),
        QT_TRANSLATE_NOOP("DoctorMessages", "it has no 'choices'"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "HTTP 200 but {why} (the KeyError: 'choices' case); body: {excerpt}",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "the stream broke after {events} events: {error}"),
        QT_TRANSLATE_NOOP("DoctorMessages", "missing"),
        QT_TRANSLATE_NOOP("DoctorMessages", "{seen}, [DONE] seen, but no usage in the stream"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Token counts will be estimated with a tokenizer and results marked estimated; a "
            "server that honours stream_options.include_usage (vLLM does) gives exact counts.",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages", "{url} answered, but not with Prometheus text: {excerpt}"
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "; KV cache {tokens:,} tokens"),
        QT_TRANSLATE_NOOP("DoctorMessages", "no model given; the server serves: {served}"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Pass --model {model} so requests and results name the model.",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "HTTP {status} with a {api} body: {excerpt}; the same URL answers a {other} body, so "
            "it is the {other} endpoint",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", " (Retry-After: {seconds} s)"),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP {status} for stream=true: {error}"),
        QT_TRANSLATE_NOOP("DoctorMessages", "{url}: {error}"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Use --backend {backend} with this URL, or point --endpoint at the {api} path; backend "
            "and endpoint must match.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", " ({source})"),
        QT_TRANSLATE_NOOP("DoctorMessages", "accepted {header}{source}"),
        QT_TRANSLATE_NOOP("DoctorMessages", "a leading {what}"),
        QT_TRANSLATE_NOOP("DoctorMessages", "a trailing {what}"),
        QT_TRANSLATE_NOOP("DoctorMessages", "whitespace inside it"),
        QT_TRANSLATE_NOOP("DoctorMessages", "quotes around it"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages", "the word 'Bearer' in it (TPOT Bench adds that itself)"
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "HTTP {status}: the server rejected {header}{source}; the key has {problems}",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "HTTP {status}: the server rejected {header}{source}: a key for another endpoint, "
            "mistyped, or expired",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "not confirmed: every URL tried answered 404/405, so the key was never checked",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Fix the path first (next check), then run the doctor again.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "no key sent, and the server did not ask for one"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "accepted {header}{source}, but the key has {problems}; TPOT Bench strips surrounding "
            "whitespace before sending",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Remove the stray characters where the key is stored: curl, vllm bench serve and SDKs "
            "send it as is and get 401.",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "HTTP {status}: the server wants a key and none was sent{source}",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Set the key in the environment variable named by --api-key-env (e.g. export "
            "OPENAI_API_KEY=...) or in the profile; local vLLM needs none, a gateway does.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "POST {url} answered HTTP {status}"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "POST {url} gave HTTP {status}; none of these answered either: {tried}",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "{url} answers (HTTP {status}) after a correction: {notes}",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Write the base URL as {root} (with --endpoint {endpoint}): TPOT Bench repaired it, "
            "but vllm bench serve and other clients would get 404.",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "{url} answers (HTTP {status}), but the base URL carries the API path",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Pass the server root {root} as the base URL and the path as --endpoint: vllm bench "
            "serve appends --endpoint to the base URL.",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "POST {url} gave HTTP {status}; {candidate} answers instead",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages", "Use --base-url {base} (requests then go to {candidate})."
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "the API key contains a line break or another control character; not sent",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Remove the stray characters where the key is stored (environment variable, keyring "
            "entry or the profile's key field).",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "the API key cannot be sent"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "accepted {header}{source}, but over plain http:// to {host}: the key crossed the "
            "network unencrypted",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Use https:// for this server, or reach it through an SSH tunnel to localhost: anyone "
            "on the way can read the key.",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "POST {url} gave HTTP {status}, but {candidate} answers: the server serves the {other} "
            "API, not {api} (the chat vs completions mix-up)",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Use --backend {backend} --endpoint {endpoint} (in the window: API {other}); chat and "
            "completions are separate endpoints and a server may serve only one.",
        ),
        # The failure taxonomy's titles and fix sentences (app/bench/http/failures.py).
        QT_TRANSLATE_NOOP("DoctorMessages", "host name not found"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Check the host name in the base URL (typo? VPN or proxy needed?).",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "connection refused or reset"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Check that the server is running and listening on this host and port (try GET "
            "/v1/models), and that the base URL uses the right port.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "TLS handshake or certificate failed"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Use https:// only if the server speaks TLS; for a self-signed certificate turn off "
            "certificate verification for this endpoint.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "no answer within the time limit"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The server or network is too slow or stalled; check that it is not overloaded, or "
            "raise --timeout (longest silence) or --request-timeout (whole request).",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP redirect (not followed)"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Use the URL it redirects to as the base URL (often https:// instead of http://): a "
            "benchmark does not follow redirects, and clients drop a POST body through them.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP 400 bad request"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The server rejected the request body; read the message (max_tokens too large for the "
            "context, unsupported parameter, wrong model id).",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP 401 unauthorized"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Send a valid key: set it in the environment variable named by --api-key-env (or "
            "OPENAI_API_KEY / API_KEY) without stray spaces; local vLLM needs none.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP 403 forbidden"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The key is valid but not allowed here: check its permissions, quota or expiry, and "
            "that it belongs to this endpoint.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP 404 not found"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The path or model is wrong: check /v1 is neither missing nor doubled, that the "
            "endpoint matches the API (chat vs completions), and that the model id is served.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP 405 method not allowed"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The URL points at something that is not a completions endpoint; check the base URL "
            "and endpoint path.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP 413 request too large"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The prompt is larger than the server or gateway accepts; use shorter prompts.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP 422 unprocessable request"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The server did not accept a field of the request; read the message for the field.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP 429 rate limited"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The server or gateway is throttling: lower --request-rate or --max-concurrency, or "
            "raise the key's rate limit.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP client error"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The server refused the request; read the message it returned.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "HTTP server error"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The server failed internally (overloaded, crashed, out of memory); check its log.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "response is not an event stream"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            'The server answered without Server-Sent Events; check that it supports "stream": true '
            "on this endpoint and that the URL is the API, not a web page.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "stream ended early"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The connection closed before the reply finished (no finish_reason, no [DONE]); check "
            "the server log or a proxy's timeout.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "stream message is not the expected JSON"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Something between client and server rewrites the stream, or the server is not "
            "OpenAI-compatible; look at the excerpt.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "broken HTTP framing or encoding"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The reply's chunked framing or compression is broken: a proxy or the server mangles "
            "the response; try the server directly and check its log.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "impossible token counts in usage"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The server reported negative, fractional or absurd token counts, so no throughput "
            "can be computed from them; check the server or gateway version.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "reply larger than the limit"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The server sent far more than any reply needs (an endless line, a huge event, a body "
            "that inflates without end); check the URL points at the API and the server's health.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "server sent an error inside the stream"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Read the error the server sent; it often names the bad parameter or an overload.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "no message carried choices"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The reply had no choices: usually a chat model called on /v1/completions or the other "
            "way round; match --backend (openai-chat / openai) to the endpoint.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "cancelled by the user"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The run was stopped before this request finished; nothing to fix.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "unexpected client-side error"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "This is a bug in TPOT Bench or an unusual server reply; please report the message.",
        ),
        # Server names from /metrics (serverstats.SERVER_LABELS).
        QT_TRANSLATE_NOOP("DoctorMessages", "vLLM (V1 metric names)"),
        QT_TRANSLATE_NOOP("DoctorMessages", "vLLM (legacy V0 metric names)"),
        QT_TRANSLATE_NOOP("DoctorMessages", "SGLang"),
        QT_TRANSLATE_NOOP("DoctorMessages", "llama.cpp server"),
        QT_TRANSLATE_NOOP("DoctorMessages", "Text Generation Inference"),
        QT_TRANSLATE_NOOP("DoctorMessages", "unrecognised Prometheus exporter"),
        # Whitespace names in key slips, where the UI's key came from, the list separator.
        QT_TRANSLATE_NOOP("DoctorMessages", "space"),
        QT_TRANSLATE_NOOP("DoctorMessages", "tab"),
        QT_TRANSLATE_NOOP("DoctorMessages", "newline"),
        QT_TRANSLATE_NOOP("DoctorMessages", "carriage return"),
        QT_TRANSLATE_NOOP("DoctorMessages", "whitespace character"),
        QT_TRANSLATE_NOOP("DoctorMessages", "from the profile"),
        QT_TRANSLATE_NOOP("DoctorMessages", ", "),
        # A reached server whose model list is unusable; a server that streams regardless.
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "{host} answered (HTTP {status}), but its reply to GET {url} {problem}; the checks "
            "that need no model list go on",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "A model list is a few kilobytes and comes at once: check that the URL points at the "
            "API itself (not a proxy or a page in front of it) and that the server is healthy.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "is larger than {mib} MiB"),
        QT_TRANSLATE_NOOP("DoctorMessages", "could not be read ({error})"),
        QT_TRANSLATE_NOOP("DoctorMessages", "did not finish within {s:g} s (--request-timeout)"),
        QT_TRANSLATE_NOOP("DoctorMessages", "stalled: nothing arrived for {s:g} s (--timeout)"),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            'HTTP 200, but the reply is an event stream although the request said "stream": '
            "false: the server streams regardless",
        ),
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Benchmarks stream, so their figures are unaffected; a client that needs one JSON "
            "reply gets KeyError: 'choices' from this server. Check the server's or gateway's "
            "streaming setting.",
        ),
        QT_TRANSLATE_NOOP("DoctorMessages", "typed in the API key field, not saved"),
        # The window's own words for the sentences above that name command-line flags.
        *WINDOW_WORDS.values(),
    )
)


def translate_template(template: str) -> str:
    """One template in the UI language, said as the window says it (fields, not flags); data
    (VERBATIM) and unknown templates stay as they are."""
    if not template or template == VERBATIM or template not in TEMPLATES:
        return template
    template = window_template(template)
    return QCoreApplication.translate(CONTEXT, template)


def translate_message(message: Msg) -> str:
    return message.render(translate_template)


def translate_check(check: Check) -> tuple[str, str]:
    """The check's (detail, fix) in the UI language; English text for hand-made checks."""
    fix = translate_message(check.fix_msg) if check.fix else ""
    return translate_message(check.detail_msg), fix
