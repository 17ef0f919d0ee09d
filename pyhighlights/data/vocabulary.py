"""Word vocabulary: word <-> id, with padding and unknown-word ids fixed."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pyhighlights.data.batch import Document

PAD_TOKEN, UNK_TOKEN = "<pad>", "<unk>"
PAD_ID, UNK_ID = 0, 1


class Vocabulary:
    """Ids 0 and 1 are padding and unknown words; real words follow.

    :meth:`encode` maps unknown words to ``UNK_ID`` and keeps running counts
    of tokens encoded and of those that were out of vocabulary, so a caller
    can report coverage (``oov_counts()``) after encoding a split.
    """

    def __init__(self, words: Iterable[str]) -> None:
        self.words: list[str] = [PAD_TOKEN, UNK_TOKEN]
        self.ids: dict[str, int] = {PAD_TOKEN: PAD_ID, UNK_TOKEN: UNK_ID}
        for word in words:
            if word in self.ids:
                raise ValueError(f"word {word!r} given twice (or is a reserved token)")
            self.ids[word] = len(self.words)
            self.words.append(word)
        self.reset_counts()

    @classmethod
    def from_documents(
        cls, documents: Iterable[Document], *, min_freq: int = 1, max_size: int | None = None
    ) -> "Vocabulary":
        """Words seen at least ``min_freq`` times, most frequent first (ties by word).

        Build it from the training split only, so evaluation text cannot
        leak into the model through which words get their own id.
        """
        if min_freq < 1:
            raise ValueError(f"min_freq must be >= 1, got {min_freq}")
        frequency = Counter(token for document in documents for token in document.tokens)
        for reserved in (PAD_TOKEN, UNK_TOKEN):
            frequency.pop(reserved, None)
        ranked = sorted((w for w, n in frequency.items() if n >= min_freq), key=lambda w: (-frequency[w], w))
        return cls(ranked[:max_size] if max_size is not None else ranked)

    @classmethod
    def from_words(cls, words: Iterable[str]) -> "Vocabulary":
        """A vocabulary of exactly these words, in this order (e.g. a vector file's)."""
        return cls(w for w in words if w not in (PAD_TOKEN, UNK_TOKEN))

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.ids

    def id_of(self, word: str) -> int:
        return self.ids.get(word, UNK_ID)

    def encode(self, tokens: list[str]) -> list[int]:
        ids = [self.ids.get(token, UNK_ID) for token in tokens]
        self.encoded_tokens += len(ids)
        self.oov_tokens += sum(i == UNK_ID for i in ids)
        return ids

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self.words[i] for i in ids]

    def reset_counts(self) -> None:
        self.encoded_tokens = 0
        self.oov_tokens = 0

    def oov_counts(self) -> dict:
        """Tokens encoded since the last reset, how many were unknown, and the rate."""
        rate = self.oov_tokens / self.encoded_tokens if self.encoded_tokens else float("nan")
        return {"tokens": self.encoded_tokens, "oov_tokens": self.oov_tokens, "oov_rate": rate}
