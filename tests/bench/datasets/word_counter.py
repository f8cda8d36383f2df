"""A tokenizer for dataset tests: one token per whitespace-separated word, so lengths are
easy to work out by hand."""


class WordCounter:
    def count(self, text: str) -> int:
        return len(text.split())


WORDS = WordCounter()
