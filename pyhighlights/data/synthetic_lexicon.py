"""Words and sentence templates of the synthetic Beer corpus.

Every aspect has its own nouns (neutral words that say which aspect a
sentence is about), neutral descriptors, and positive/negative words. The
sentiment words of different aspects never overlap, so the label of an aspect
can only be read from that aspect's sentences -- unless the aspects' scores
are correlated, which is the trap the generator's ``correlation`` knob sets.
Middle-band scores use hedging words shared by all aspects.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AspectWords:
    nouns: tuple[str, ...]
    verbs: tuple[str, ...]  # how a sentence about this aspect can open
    descriptors: tuple[str, ...]
    positive: tuple[str, ...]
    negative: tuple[str, ...]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


ASPECT_WORDS = (
    AspectWords(  # appearance
        nouns=_words("appearance look pour color head lacing foam hue retention clarity"),
        verbs=("pours", "looks", "appears"),
        descriptors=_words("amber copper straw chestnut mahogany orange ruby tan ivory bronze"),
        positive=_words(
            "golden clear brilliant beautiful gorgeous sparkling radiant vibrant luminous "
            "lustrous striking glowing pristine dazzling fluffy billowing"
        ),
        negative=_words(
            "murky flat dull muddy dingy lifeless drab faded grimy sludgy cloudy lackluster "
            "dismal ugly patchy fizzled"
        ),
    ),
    AspectWords(  # aroma
        nouns=_words("aroma smell nose scent bouquet whiff odor"),
        verbs=("smells", "comes across", "opens up"),
        descriptors=_words("pine citrus caramel banana clove grass bread toast grapefruit mango vanilla"),
        positive=_words(
            "fragrant aromatic floral inviting enticing heady perfumed fresh alluring "
            "intoxicating vivid expressive pleasant seductive delicate bright"
        ),
        negative=_words(
            "skunky musty stale rank moldy vinegary metallic solvent damp rotten sulfurous "
            "cardboardy stinky faint muted foul"
        ),
    ),
    AspectWords(  # palate
        nouns=_words("mouthfeel palate feel texture carbonation body mouth"),
        verbs=("feels", "sits", "glides"),
        descriptors=_words("medium light full moderate dense lighter fuller"),
        positive=_words(
            "smooth silky velvety crisp lively creamy luscious supple refreshing satisfying "
            "plush polished seamless round effervescent slick"
        ),
        negative=_words(
            "watery thin harsh astringent prickly syrupy cloying sticky coarse chalky oily "
            "gritty overcarbonated limp rough sharp"
        ),
    ),
    AspectWords(  # taste
        nouns=_words("taste flavor profile sip sweetness backbone finish"),
        verbs=("tastes", "delivers", "brings"),
        descriptors=_words("malt hops toffee biscuit roast honey cherry plum coffee chocolate"),
        positive=_words(
            "delicious tasty flavorful complex juicy balanced delightful savory decadent "
            "layered rich scrumptious mouthwatering yummy nuanced harmonious"
        ),
        negative=_words(
            "bland sour burnt medicinal soapy insipid acrid artificial tinny unpleasant "
            "boring muddled flavorless grainy papery vegetal"
        ),
    ),
    AspectWords(  # overall
        nouns=_words("overall drinkability verdict experience offering impression"),
        verbs=("it is", "this one is", "all told it is"),
        descriptors=_words("value session rotation revisit"),
        positive=_words(
            "excellent outstanding superb fantastic wonderful terrific great stellar "
            "memorable exceptional marvelous impressive remarkable splendid phenomenal awesome"
        ),
        negative=_words(
            "disappointing awful terrible poor dreadful forgettable lousy abysmal regrettable "
            "horrible miserable pathetic atrocious subpar weak lame"
        ),
    ),
)

# Middle-band (0.4 < score < 0.6) sentences hedge with these, whatever the aspect.
MIDDLE_WORDS = _words(
    "average okay decent passable standard ordinary middling fair adequate unremarkable "
    "acceptable so-so"
)

ADVERBS = _words("very quite really rather pretty fairly truly somewhat")

# Slots: {n} aspect noun, {v} aspect verb, {d} descriptor, {s} sentiment word
# (all {s} of one sentence share the aspect's polarity), {a} adverb.
# The first template is the shortest; it is used when a review is too short
# for longer sentences.
ASPECT_TEMPLATES = (
    "{n} is {s} .",
    "the {n} is {a} {s} .",
    "{s} {n} with hints of {d} .",
    "the {n} is {s} and {s} .",
    "{v} {a} {s} .",
    "{v} {s} , {a} {s} with a touch of {d} .",
    "i found the {n} {a} {s} , with {d} in the background .",
    "{d} {n} , {s} and {s} .",
    "as for the {n} , it is {a} {s} and {s} .",
    "the {n} is {s} , {s} and {a} {s} .",
    "{n} : {s} , {d} , {s} .",
)

# Sentences about nothing rated: where the beer was bought, served, shared.
FILLER_SENTENCES = (
    "picked this up at the local shop last week .",
    "served in a tulip glass .",
    "bottle dated from early spring .",
    "thanks to my brother for sharing this one .",
    "had this on tap at the pub downtown .",
    "part of a mixed six pack .",
    "twelve ounce bottle into a pint glass .",
    "review from notes .",
    "this is my first beer from this brewery .",
    "drank it with dinner on a friday night .",
    "the label has a picture of a boat on it .",
    "it was a gift from a coworker .",
    "cellared for about a year before opening .",
    "the brewery is about an hour from my house .",
    "i have had this one a few times now .",
    "shared with friends at a tasting .",
    "the cap came off with a pop .",
    "drank it at cellar temperature .",
    "paired it with some cheese and crackers .",
    "the price was around eight dollars for the bottle .",
    "it is a seasonal release that shows up in the fall .",
    "i remember having this years ago at a festival .",
    "bought a single to try before committing to a case .",
    "the bartender recommended it when i asked for something new .",
    "this style is not one i drink often .",
    "cheers .",
)

SHORTEST_FILLER = "cheers"  # used only when one token of room is left
