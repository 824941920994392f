"""The two released multiple-choice matchers on tricky outputs.

Every expected value below was worked out by hand from the released code's rules
(mcq-benchmarks.md §1-2, §4), not by running our implementation.
"""

from __future__ import annotations

import pytest

from scoring.metrics.mcq import UNANSWERED, mmau_choice, mmau_string_match, mmau_tokens, muchomusic_choice

INSTRUMENTS = ["Piano", "Drums", "Brass section", "Violin"]


@pytest.mark.parametrize(("output", "expected"), [
    ("B", 1),
    ("(C)", 2),
    ("AAA", 0),                                   # repeats of one letter are one distinct letter
    ("Answer: B", UNANSWERED),                    # the A of "Answer" is a second letter; no option text inside
    ("ANSWER: B", UNANSWERED),
    ("Definitely the piano", 3),                  # the D of "Definitely" is the only capital A-D
    ("Brass section", 1),                         # B -> the SECOND shown option (Drums), not Brass
    ("brass section", 2),                         # no capital: the option text decides
    ("(A) or (B)", UNANSWERED),                   # two letters, no option text
    ("I'd say (A) piano or (B) drums", 0),        # two letters -> first option text in shown order
    ("The correct answer is: (A) Piano. The correct answer is: (C)", 2),  # cut at the LAST prefix
    ("the correct answer is: violin", 3),         # prefix is case-sensitive: not cut, no capitals -> text
    ("The correct answer is:", UNANSWERED),
    ("piano, drums, brass section or violin?", 0),  # all four echoed: the first shown option wins
    ("\uff22", UNANSWERED),                       # fullwidth B is not B
    ("", UNANSWERED),
    ("   ", UNANSWERED),
])
def test_muchomusic_extract_responses(output: str, expected: int) -> None:
    assert muchomusic_choice(output, INSTRUMENTS) == expected


def test_muchomusic_option_text_in_shown_order_first_substring_wins() -> None:
    options = ["rock", "folk rock", "jazz", "pop"]
    assert muchomusic_choice("i think it is folk rock", options) == 0
    assert muchomusic_choice("i think it is folk rock", ["folk rock", "rock", "jazz", "pop"]) == 0
    assert muchomusic_choice("it is jazz", options) == 2
    assert muchomusic_choice("  ROCK  ", ["x", "rock", "y", "z"]) == 2  # the C of ROCK is a letter: C, not "rock"
    assert muchomusic_choice("  rock  ", ["x", "  Rock ", "y", "z"]) == 1  # options stripped and lowered


def test_mmau_tokens_are_word_runs() -> None:
    assert mmau_tokens("Don't stop-motion, 3/4 time.") == {"don", "t", "stop", "motion", "3", "4", "time"}
    assert mmau_tokens("Café") == {"café"}
    assert mmau_tokens("") == set()


CHOICES = ["Piano", "Acoustic guitar", "Drum kit", "Violin"]


@pytest.mark.parametrize(("prediction", "expected"), [
    ("Piano", True),
    ("PIANO.", True),
    ("(A) Piano", True),               # the letter is just another token, absent from every wrong choice
    ("A", False),                      # a bare letter is never credited
    ("(A)", False),
    ("The answer is Piano", True),     # no filler word occurs in a wrong choice here
    ("Piano or violin", False),        # a wrong choice's token
    ("acoustic piano", False),         # "acoustic" belongs to a wrong choice
    ("", False),
    ("   ", False),
    ("!!!", False),                    # no token at all
])
def test_mmau_string_match(prediction: str, expected: bool) -> None:
    assert mmau_string_match("Piano", prediction, CHOICES) is expected


def test_mmau_filler_words_of_wrong_choices_make_a_verbose_answer_wrong() -> None:
    choices = ["Piano", "The guitar", "A man and a child", "Lyndon B. Johnson"]
    assert mmau_string_match("Piano", "Piano", choices) is True
    assert mmau_string_match("Piano", "The answer is Piano", choices) is False  # "the" is in "The guitar"
    assert mmau_string_match("Piano", "(A) Piano", choices) is False            # "a" is in "A man and a child"
    assert mmau_string_match("Piano", "(C) Piano", choices) is True
    assert mmau_string_match("Piano", "(B) Piano", choices) is False            # "b" is in "Lyndon B. Johnson"
    assert mmau_string_match("The guitar", "the guitar", choices) is True       # gold tokens leave X


def test_mmau_choices_with_equal_token_sets_are_both_credited() -> None:
    choices = ["Piano then guitar", "Guitar then piano", "Drums", "Bass"]
    assert mmau_string_match("Piano then guitar", "guitar then piano", choices) is True
    numbers = ["One hundred and ninety", "One hundred and ninety-one", "Ninety", "One"]
    assert mmau_string_match("One hundred and ninety", "one hundred and ninety-one", numbers) is True
    assert mmau_string_match("Ninety", "one hundred and ninety", numbers) is False


def test_mmau_gold_with_stray_spaces_matches_its_option() -> None:
    assert mmau_string_match(" Violin ", "violin", CHOICES) is True


def test_mmau_choice_is_the_first_credited_option() -> None:
    assert mmau_choice("(A) Piano", CHOICES) == 0
    assert mmau_choice("drum kit", CHOICES) == 2
    assert mmau_choice("B", CHOICES) == UNANSWERED
    assert mmau_choice("guitar then piano", ["Piano then guitar", "Guitar then piano", "Drums", "Bass"]) == 0
    assert mmau_choice("", CHOICES) == UNANSWERED
