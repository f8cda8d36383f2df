"""The doctor's advice as the window says it: fields to change, not command-line flags.

The engine's fix sentences are written for the terminal (`--endpoint`, `--api-key-env`, "run
the doctor again"); someone in the window changes the endpoint's fields instead. Each CLI
sentence that names a flag has its window sentence here, with the same placeholders (or
fewer), so the window never tells a user to type a flag they have nowhere to type.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.ui.translate_noop import QT_TRANSLATE_NOOP

# CLI template -> window template (both in the "DoctorMessages" translation context).
WINDOW_WORDS: dict[str, str] = {
    "Pass one of the served ids with --model; vLLM serves the name given by "
    "--served-model-name (e.g. --served-model-name qwen2.5-7b).": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "Enter one of the served ids in the endpoint's Model field (List models fills it in); "
        "vLLM serves the name given by its --served-model-name.",
    ),
    "Pass --model {model} so requests and results name the model.": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "Enter {model} in the endpoint's Model field so requests and results name the model.",
    ),
    "Use --backend {backend} with this URL, or point --endpoint at the {api} path; backend "
    "and endpoint must match.": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "This URL serves the other API: change the endpoint's API field (it is set to {api}), "
        "or give a Base URL that serves {api}; the API field and the URL must match.",
    ),
    "Fix the path first (next check), then run the doctor again.": QT_TRANSLATE_NOOP(
        "DoctorMessages", "Fix the path first (next check), then press Check connection again."
    ),
    "Set the key in the environment variable named by --api-key-env (e.g. export "
    "OPENAI_API_KEY=...) or in the profile; local vLLM needs none, a gateway does.": (
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "Enter the key in the endpoint's API key field; local vLLM needs none, a gateway does.",
        )
    ),
    "Write the base URL as {root} (with --endpoint {endpoint}): TPOT Bench repaired it, "
    "but vllm bench serve and other clients would get 404.": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "Write the endpoint's Base URL as {root}: TPOT Bench repaired it, but vllm bench serve "
        "and other clients would get 404.",
    ),
    "Pass the server root {root} as the base URL and the path as --endpoint: vllm bench "
    "serve appends --endpoint to the base URL.": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "Enter the server root {root} as the endpoint's Base URL and choose the API in the API "
        "field: clients add the API's path to the base URL themselves.",
    ),
    "Use --base-url {base} (requests then go to {candidate}).": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "Set the endpoint's Base URL to {base} (requests then go to {candidate}).",
    ),
    "Remove the stray characters where the key is stored (environment variable, keyring "
    "entry or the profile's key field).": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "Remove the stray characters from the endpoint's API key field, then Save.",
    ),
    "Use --backend {backend} --endpoint {endpoint} (in the window: API {other}); chat and "
    "completions are separate endpoints and a server may serve only one.": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "Set the endpoint's API field to {other}; chat and completions are separate endpoints "
        "and a server may serve only one.",
    ),
    # The failure taxonomy's fixes (app/bench/http/failures.py), shown by the doctor, the
    # probe and the sweep.
    "The server or network is too slow or stalled; check that it is not overloaded, or "
    "raise --timeout (longest silence) or --request-timeout (whole request).": (
        QT_TRANSLATE_NOOP(
            "DoctorMessages",
            "The server or network is too slow or stalled; check that it is not overloaded, or "
            "raise the Request time-out in the Sweep tab's advanced settings.",
        )
    ),
    "Send a valid key: set it in the environment variable named by --api-key-env (or "
    "OPENAI_API_KEY / API_KEY) without stray spaces; local vLLM needs none.": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "Send a valid key: enter it in the endpoint's API key field without stray spaces; "
        "local vLLM needs none.",
    ),
    "The server or gateway is throttling: lower --request-rate or --max-concurrency, or "
    "raise the key's rate limit.": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "The server or gateway is throttling: lower the Sweep tab's request rates or "
        "concurrencies, or raise the key's rate limit.",
    ),
    "The reply had no choices: usually a chat model called on /v1/completions or the other "
    "way round; match --backend (openai-chat / openai) to the endpoint.": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "The reply had no choices: usually a chat model called on /v1/completions or the other "
        "way round; set the endpoint's API field to match the URL.",
    ),
    # A reached server whose model list came too slowly (bench/doctor: the model list check).
    "did not finish within {s:g} s (--request-timeout)": QT_TRANSLATE_NOOP(
        "DoctorMessages",
        "did not finish within {s:g} s (the Request time-out in the Sweep tab's advanced settings)",
    ),
    "stalled: nothing arrived for {s:g} s (--timeout)": QT_TRANSLATE_NOOP(
        "DoctorMessages", "stalled: nothing arrived for {s:g} s"
    ),
}


def window_template(template: str) -> str:
    """The window's sentence for a CLI template; other templates as they are."""
    return WINDOW_WORDS.get(template, template)


# Sentences of the sweep worker's own errors (app/bench/sweep/discovery.py), which reach the
# window as text: their CLI advice, and what to say instead.
_ERROR_ADVICE = (
    (
        "export OPENAI_API_KEY=... (or name your variable with --api-key-env)",
        QT_TRANSLATE_NOOP("DoctorMessages", "enter it in the endpoint's API key field"),
    ),
    (
        "or run 'tpotbench doctor'",
        QT_TRANSLATE_NOOP("DoctorMessages", "or open the Doctor tab and press Check connection"),
    ),
)


def window_error(message: str) -> str:
    """A worker's error line with its command-line advice said in the window's terms."""
    for cli, window in _ERROR_ADVICE:
        message = message.replace(cli, QCoreApplication.translate("DoctorMessages", window))
    return message
