"""TPOT Bench: measure an OpenAI-compatible LLM endpoint's latency and explain it."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tpotbench")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
