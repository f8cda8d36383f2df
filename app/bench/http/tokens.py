"""Output token counts when the server sends no usage: a local tokenizer, else an estimate."""

from __future__ import annotations

from pathlib import Path


class TokenizerError(ValueError):
    """A --tokenizer directory that cannot be used; the message says what to do."""


class TokenCounter:
    """Counts tokens with a Hugging Face ``tokenizer.json`` (the ``tokenizers`` package)."""

    def __init__(self, directory: str | Path) -> None:
        path = Path(directory).expanduser()
        file = path / "tokenizer.json" if path.is_dir() else path
        if not file.is_file():
            raise TokenizerError(
                f"no tokenizer.json in '{directory}'; pass the model's folder that holds "
                "tokenizer.json (for example a downloaded Hugging Face snapshot)"
            )
        from tokenizers import Tokenizer  # imported here: only needed with --tokenizer

        try:
            self._tok = Tokenizer.from_file(str(file))
        except Exception as exc:  # the library raises a bare Exception on bad files
            raise TokenizerError(f"cannot read tokenizer '{file}': {exc}") from None
        self.path = file

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._tok.encode(text, add_special_tokens=False).ids)


def estimate_tokens(text: str) -> int:
    """A rough count for when neither usage nor a tokenizer is available (marked 'estimate').

    About 4 characters per token for ASCII text and 1.5 per token for other scripts (CJK), the
    usual rule of thumb for BPE vocabularies of current models.
    """
    if not text:
        return 0
    ascii_chars = sum(1 for ch in text if ch < "\x80")
    other = len(text) - ascii_chars
    return max(1, round(ascii_chars / 4 + other / 1.5))
