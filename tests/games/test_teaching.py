"""The rule sections' data: every file loads, every example is what the engine says, in
both languages; a file with a mistake is refused with the file and the reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games.engine import IllegalMove, PickUp, Play, Rules
from games.teaching import Example, TeachingDataError, load_sections, option_anchor, rule_sections

EXAMPLES = [
    pytest.param(example, id=f"{section.anchor}-{number}")
    for section in rule_sections()
    for number, example in enumerate(section.examples, 1)
]


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_example_is_what_the_engine_says(example: Example) -> None:
    state = example.position()
    legal = state.legal_moves()
    if example.plays is not None:
        assert {frozenset(m.cards) for m in legal if isinstance(m, Play)} == example.plays
    if example.pickups is not None:
        assert {m.count for m in legal if isinstance(m, PickUp)} == example.pickups
    for cards in example.refused:
        with pytest.raises(IllegalMove):
            state.apply(Play(cards))
    if example.move is None:
        return
    after = state.apply(example.move)
    claim = example.after
    if claim is None:
        return
    if claim.pile is not None:
        assert after.pile == claim.pile
    if claim.hand is not None:
        assert sorted(after.hand(0)) == sorted(claim.hand)
    if claim.to_move is not None:
        assert after.outcome is None and after.to_move == claim.to_move
    if claim.result is None:
        assert after.outcome is None
    elif claim.result == "tie":
        assert after.outcome is not None and after.outcome.tie
    else:
        assert after.outcome is not None and after.outcome.loser == claim.loser
    if claim.final_play is not None:
        assert after.outcome is not None and after.outcome.final_play is not None
        assert set(after.outcome.final_play.cards) == set(claim.final_play)


def test_every_table_option_is_explained_by_a_section() -> None:
    for option in Rules.__dataclass_fields__:
        assert option_anchor(option) in {s.anchor for s in rule_sections()}


# English words of RULES.md and the Polish the site uses for them (a Polish text of a
# section whose English text uses the word must use the Polish one; "mecz" never).
GLOSSARY = {
    r"\bmatch\b": r"parti",
    r"\bpile\b": r"stos",
    r"\bbase card\b": r"kart\w* bazow",
    r"\btie\b": r"remis",
    r"\bbeton\b": r"beton",
    r"\bletters?\b": r"liter",
}


@pytest.mark.parametrize("section", rule_sections(), ids=lambda s: s.anchor)
def test_both_languages_are_complete_and_use_the_glossary(section) -> None:
    for words in (section.title, section.text, *(e.caption for e in section.examples)):
        assert words.en.strip() and words.pl.strip()
        assert "mecz" not in words.pl.lower()
        # The suit is "kier" (a heart: "karta w kolorze kier"); "kiero" is slang.
        assert not re.search(r"\bkiero\b", words.pl.lower()), section.anchor
    english, polish = section.text.en.lower(), section.text.pl.lower()
    for english_word, polish_word in GLOSSARY.items():
        if re.search(english_word, english):
            assert re.search(polish_word, polish), (section.anchor, polish_word)
    assert len(section.paragraphs("pl")) == len(section.paragraphs("en"))


GOOD = """
anchor = "sample"
order = 1
options = ["spades_back"]
[en]
title = "Sample"
text = "Text."
[pl]
title = "Przykład"
text = "Tekst."
[[examples]]
rules = { spades_back = true }
pile = ["9H", "QD"]
hand = ["KS"]
others = [["AH"]]
plays = [["KS"]]
en = "Caption."
pl = "Podpis."
"""


def _load(tmp_path: Path, text: str) -> None:
    (tmp_path / "sample.toml").write_text(text)
    load_sections(tmp_path)


def test_a_good_file_loads(tmp_path: Path) -> None:
    _load(tmp_path, GOOD)
    [section] = load_sections(tmp_path)
    assert section.options == ("spades_back",)
    assert section.examples[0].rules == Rules(spades_back=True)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('pl = "Podpis."', ""), "caption in 'pl' is missing"),
        (('[pl]\ntitle = "Przykład"\ntext = "Tekst."', ""), "[pl] title and text are missing"),
        (('text = "Tekst."', 'text = "  "'), "text in 'pl' is missing or empty"),
        (('hand = ["KS"]', 'hand = ["KZ"]'), "KZ"),
        (('hand = ["KS"]', 'hand = ["2S"]'), "2S is not a card of this table's deck"),
        (("spades_back = true }", "spades_bak = true }"), "unknown rule option(s) 'spades_bak'"),
        (('options = ["spades_back"]', 'options = ["spades"]'), "unknown option 'spades'"),
        (('anchor = "sample"', 'anchor = "Sample one"'), "anchor must be"),
        (('plays = [["KS"]]', ""), "it claims nothing"),
        (('others = [["AH"]]', 'others = [["AH"]]\nmoves = 3'), "unknown key(s) moves"),
    ],
)
def test_a_mistake_is_refused_naming_the_file(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    old, new = change
    assert old in GOOD
    with pytest.raises(TeachingDataError) as refused:
        _load(tmp_path, GOOD.replace(old, new, 1))
    assert str(refused.value).startswith("sample.toml: ")
    assert message in str(refused.value)


def test_an_anchor_used_twice_is_refused(tmp_path: Path) -> None:
    (tmp_path / "one.toml").write_text(GOOD)
    (tmp_path / "two.toml").write_text(GOOD.replace("order = 1", "order = 2"))
    with pytest.raises(TeachingDataError, match="anchor 'sample' is used by both"):
        load_sections(tmp_path)
