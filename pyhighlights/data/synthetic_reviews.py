"""One review of the synthetic Beer corpus: its sentences, scores and spans.
A review is a sequence of sentences about the five rated aspects
(appearance, aroma, palate, taste, overall) plus filler sentences about
nothing rated. An aspect's sentiment is carried only by that aspect's own
words inside that aspect's sentences (see :mod:`synthetic_lexicon`), and the
review records the token spans of each aspect's sentences.
Scores are tenths: 0.2-0.4 (negative), 0.5 (the middle band the loaders
drop) or 0.6-1.0 (positive). Each review has an *anchor* aspect whose
polarity is drawn first; every other aspect copies the anchor's polarity with
probability ``correlation`` and is drawn independently otherwise.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pyhighlights.data.lei_format import NUM_SCORES, Span
from pyhighlights.data.synthetic_lexicon import (
    ADVERBS,
    ASPECT_TEMPLATES,
    ASPECT_WORDS,
    FILLER_SENTENCES,
    MIDDLE_WORDS,
    SHORTEST_FILLER,
)

NEGATIVE, MIDDLE, POSITIVE = "negative", "middle", "positive"
# Like real reviews, positive ones are the majority: balancing has work to do.
POLARITY_WEIGHTS = {NEGATIVE: 0.35, MIDDLE: 0.15, POSITIVE: 0.50}
SCORE_TENTHS = {NEGATIVE: (2, 3, 4), MIDDLE: (5,), POSITIVE: (6, 7, 8, 9, 10)}
MAX_SENTENCES_PER_ASPECT = 3
# The five aspects' sentences take 50-80% of a review by default (about 10-16% per aspect).
ASPECT_SHARE = (0.5, 0.8)

_TEMPLATES = tuple(tuple(t.split()) for t in ASPECT_TEMPLATES)
_FILLERS = tuple(tuple(s.split()) for s in FILLER_SENTENCES)
# Shortest aspect sentence (the first template, every slot one token).
MIN_REVIEW_LENGTH = NUM_SCORES * len(_TEMPLATES[0])


@dataclass
class SyntheticReview:
    tokens: list[str]
    scores: list[float]
    spans: dict[int, list[Span]]  # aspect -> token spans of its sentences


def _draw_polarities(rng: random.Random, anchor: int, correlation: float) -> list[str]:
    names, weights = list(POLARITY_WEIGHTS), list(POLARITY_WEIGHTS.values())
    anchored = rng.choices(names, weights)[0]
    return [
        anchored
        if aspect == anchor or rng.random() < correlation
        else rng.choices(names, weights)[0]
        for aspect in range(NUM_SCORES)
    ]


def _aspect_sentence(rng: random.Random, aspect: int, polarity: str, template: tuple) -> list[str]:
    words = ASPECT_WORDS[aspect]
    pool = MIDDLE_WORDS if polarity == MIDDLE else getattr(words, polarity)
    # Distinct sentiment words within one sentence read more naturally.
    sentiment = iter(rng.sample(pool, template.count("{s}")))
    tokens: list[str] = []
    for slot in template:
        if slot == "{s}":
            tokens.append(next(sentiment))
        elif slot == "{n}":
            tokens.append(rng.choice(words.nouns))
        elif slot == "{v}":
            tokens.extend(rng.choice(words.verbs).split())
        elif slot == "{d}":
            tokens.append(rng.choice(words.descriptors))
        elif slot == "{a}":
            tokens.append(rng.choice(ADVERBS))
        else:
            tokens.append(slot)
    return tokens


def _aspect_blocks(
    rng: random.Random, polarities: list[str], target: int, share: tuple[float, float]
) -> dict[int, list[list[str]]]:
    """One or more sentences per aspect, together taking a ``share`` (drawn uniformly) of ``target``."""
    blocks = {a: [_aspect_sentence(rng, a, polarities[a], rng.choice(_TEMPLATES))] for a in range(NUM_SCORES)}
    if sum(len(s) for b in blocks.values() for s in b) > target:
        # Too long for this review: fall back to the shortest sentences.
        blocks = {a: [_aspect_sentence(rng, a, polarities[a], _TEMPLATES[0])] for a in range(NUM_SCORES)}
    budget = round(target * rng.uniform(*share))
    used = sum(len(s) for b in blocks.values() for s in b)
    while True:
        open_aspects = [a for a in blocks if len(blocks[a]) < MAX_SENTENCES_PER_ASPECT]
        if not open_aspects:
            break
        aspect = rng.choice(open_aspects)
        sentence = _aspect_sentence(rng, aspect, polarities[aspect], rng.choice(_TEMPLATES))
        if used + len(sentence) > budget:
            break
        blocks[aspect].append(sentence)
        used += len(sentence)
    return blocks


def _fillers(rng: random.Random, length: int, target: int, max_length: int) -> list[list[str]]:
    """Filler sentences taking a review of ``length`` tokens to at least ``target``."""
    fillers: list[list[str]] = []
    while length < target:
        room = max_length - length
        fitting = [s for s in _FILLERS if len(s) <= room]
        sentence = list(rng.choice(fitting)) if fitting else [SHORTEST_FILLER]
        fillers.append(sentence)
        length += len(sentence)
    return fillers


def generate_review(
    rng: random.Random, *, anchor: int, correlation: float, min_length: int, max_length: int,
    aspect_share: tuple[float, float] = ASPECT_SHARE,
) -> SyntheticReview:
    """One review; ``aspect_share`` bounds the part of it the five aspects' sentences take (the rest is
    filler), so a lower share gives a lower human highlight rate per aspect (at least one sentence each)."""
    polarities = _draw_polarities(rng, anchor, correlation)
    scores = [rng.choice(SCORE_TENTHS[p]) / 10 for p in polarities]
    target = rng.randint(min_length, max_length)
    blocks = _aspect_blocks(rng, polarities, target, aspect_share)
    # Reviews mostly follow the rating sheet's order, sometimes not.
    order = list(range(NUM_SCORES))
    if rng.random() < 0.3:
        rng.shuffle(order)
    used = sum(len(s) for b in blocks.values() for s in b)
    # Fillers go before, between or after the aspect blocks, never inside one.
    slots: list[list[list[str]]] = [[] for _ in range(NUM_SCORES + 1)]
    for filler in _fillers(rng, used, target, max_length):
        slots[rng.randrange(NUM_SCORES + 1)].append(filler)
    tokens: list[str] = []
    spans: dict[int, list[Span]] = {a: [] for a in range(NUM_SCORES)}
    for position in range(NUM_SCORES + 1):
        for filler in slots[position]:
            tokens.extend(filler)
        if position < NUM_SCORES:
            aspect = order[position]
            for sentence in blocks[aspect]:
                spans[aspect].append((len(tokens), len(tokens) + len(sentence)))
                tokens.extend(sentence)
    return SyntheticReview(tokens, scores, spans)


