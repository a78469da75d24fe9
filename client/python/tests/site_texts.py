"""Deterministic test texts: 200 words each, drawn from one made-up vocabulary with a per-article
seed, so different articles are far apart (tens of bits) and one changed word is a near-copy.
Tests confirm the distances with the server's Fingerprint rather than trusting this."""
import random

WORDS = 200
_SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "pe", "da", "go", "hu", "ze", "bi", "fa", "wu"]
_VOCABULARY = sorted({"".join(random.Random(i).choices(_SYLLABLES, k=3)) for i in range(800)})


def article(seed: int) -> str:
    """Article number ``seed``."""
    rng = random.Random(seed)
    return " ".join(rng.choice(_VOCABULARY) for _ in range(WORDS))


def edited(text: str, position: int = WORDS // 2) -> str:
    """``text`` with the word at ``position`` replaced by one that is not in the text."""
    words = text.split(" ")
    words[position] = next(w for w in _VOCABULARY if w not in words)
    return " ".join(words)
