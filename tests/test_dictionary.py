"""Dictionaries (RULES.md §5) through `dictionary_for`, and naming unknown blanks from the words."""

from __future__ import annotations

import dataclasses
import gzip
import json

import pytest

from scorer.board import Board
from scorer.dictionary import (
    Dictionary,
    DictionaryError,
    NullDictionary,
    Verdict,
    WordListDictionary,
    blank_assignments,
    blank_candidates,
    dictionary_for,
    unknown_blanks,
)
from scorer.variant import Variant, load_variant


@pytest.fixture(scope="module")
def ru_variant() -> Variant:
    return load_variant("ru")


@pytest.fixture(scope="module")
def erudit_variant() -> Variant:
    return load_variant("erudit")


@pytest.fixture(scope="module")
def ru(ru_variant: Variant) -> Dictionary:
    return dictionary_for(ru_variant)


@pytest.fixture(scope="module")
def erudit(erudit_variant: Variant) -> Dictionary:
    return dictionary_for(erudit_variant)


@pytest.fixture(scope="module")
def uk() -> Dictionary:
    return dictionary_for(load_variant("uk"))


def test_dictionary_is_chosen_by_the_variant_data(ru: Dictionary, erudit: Dictionary) -> None:
    assert (ru.name, erudit.name) == ("ru", "erudit")
    assert dictionary_for(load_variant("uk")).name == "uk"
    assert dictionary_for(load_variant("en")).name == "en"


@pytest.mark.parametrize("word", ["СЛОВО", "слово", "КОТ", "НОЖНИЦЫ", "ЧАСЫ", "ПОРТНОЙ"])
def test_common_nouns_in_the_nominative_are_valid_in_both(
    ru: Dictionary, erudit: Dictionary, word: str
) -> None:
    assert ru.is_valid(word) is True
    assert erudit.is_valid(word) is True


@pytest.mark.parametrize("word", ["ЁЖ", "ЕЖ", "ЁЛКА", "ЕЛКА", "ЛЁС"])
def test_e_and_yo_are_interchangeable(ru: Dictionary, erudit: Dictionary, word: str) -> None:
    assert ru.check(word).verdict is Verdict.VALID
    assert erudit.check(word).verdict is Verdict.VALID


@pytest.mark.parametrize(
    ("word", "lemma"), [("СЛОВА", "СЛОВО"), ("СТОЛЫ", "СТОЛ"), ("ПОШЁЛ", "ПОЙТИ"), ("ИДУ", "ИДТИ")]
)
def test_other_word_forms_are_valid_in_ru_only(
    ru: Dictionary, erudit: Dictionary, word: str, lemma: str
) -> None:
    verdict = ru.check(word)
    assert verdict.is_valid is True
    assert lemma in verdict.reason
    assert erudit.is_valid(word) is False


@pytest.mark.parametrize(
    ("word", "reason"),
    [
        ("СЛОВА", "not in the nominative"),
        ("ПОШЕЛ", "a verb form"),
        ("ИДТИ", "a verb (infinitive)"),
        ("СИНИЙ", "an adjective"),
        ("ВОТ", "a particle"),
    ],
)
def test_erudit_says_why_a_word_is_not_a_nominative_noun(
    erudit: Dictionary, word: str, reason: str
) -> None:
    verdict = erudit.check(word)
    assert verdict.verdict is Verdict.INVALID
    assert reason in verdict.reason


@pytest.mark.parametrize(
    ("word", "reason"),
    [
        ("МОСКВА", "a place name"),
        ("ИВАН", "a first name"),
        ("СССР", "an abbreviation"),
        ("ВУЗ", "an abbreviation"),
        ("ЩЫРБАК", "not in the"),
        ("КТО-ТО", "'-' is not a letter"),
        ("", "empty word"),
    ],
)
def test_names_abbreviations_and_made_up_words_are_invalid(
    ru: Dictionary, erudit: Dictionary, word: str, reason: str
) -> None:
    for dictionary in (ru, erudit):
        verdict = dictionary.check(word)
        assert verdict.is_valid is False
        assert reason in verdict.reason


def test_ukrainian_words(uk: Dictionary) -> None:
    for word in ["СЛОВО", "ХЛІБ", "М'ЯСО", "ПІШОВ", "ЇЖАК"]:
        assert uk.is_valid(word) is True, word
    assert uk.check("ТАРАС").reason == "a first name"
    assert uk.is_valid("ЩИРБАК") is False


def test_word_list_is_case_insensitive_and_skips_comments(tmp_path) -> None:
    path = tmp_path / "words.txt"
    path.write_text("# my list\n\nhello\nWorld\n  qi  \naa a volcanic rock\n", encoding="utf-8")
    en = dictionary_for(load_variant("en"), word_list=path)
    assert en.name == "wordlist"
    assert [en.is_valid(w) for w in ["HELLO", "world", "QI", "AA", "VOLCANIC", "#", "XYZZY"]] == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    assert "words.txt" in en.check("XYZZY").reason


def test_a_gzipped_word_list_is_read_too(tmp_path) -> None:
    path = tmp_path / "words.txt.gz"
    path.write_bytes(gzip.compress(b"# comment\nzyzzyva\n"))
    assert dictionary_for(load_variant("en"), word_list=path).is_valid("ZYZZYVA") is True


def test_the_shipped_english_list_attests_rarer_words_without_accepting_them() -> None:
    en = dictionary_for(load_variant("en"))
    assert [en.is_valid(w) for w in ("MAZEY", "CABOVER", "BOEK", "CAT")] == [False] * 3 + [True]
    assert [en.attested(w) for w in ("MAZEY", "CABOVER", "BOEK", "CAT", "XQZJV")] == [
        True,
        True,
        False,  # four letters: too many misreads of short words are rare words
        False,  # a word of the list itself is valid, not merely attested
        False,
    ]
    assert not dictionary_for(load_variant("de")).attested("MAZEY")


def test_word_list_is_read_on_first_check(tmp_path) -> None:
    path = tmp_path / "words.txt"
    path.write_text("old\n", encoding="utf-8")
    words = WordListDictionary(path)
    path.write_text("new\n", encoding="utf-8")
    assert words.is_valid("NEW") is True
    assert words.is_valid("OLD") is False


def test_word_list_applies_the_variants_equivalent_letters(tmp_path, ru_variant: Variant) -> None:
    path = tmp_path / "слова.txt"
    path.write_text("ёж\nелка\n", encoding="utf-8")
    words = dictionary_for(ru_variant, word_list=path)
    assert [words.is_valid(w) for w in ["ЕЖ", "ЁЖ", "ЁЛКА", "ЕЛКА"]] == [True] * 4


def test_missing_word_list_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(DictionaryError, match="not a readable file"):
        dictionary_for(load_variant("en"), word_list=tmp_path / "absent.txt")


def test_a_variant_without_a_shipped_list_does_not_check_words() -> None:
    own_list = dataclasses.replace(load_variant("pl"), dictionary="wordlist")
    verdict = dictionary_for(own_list).check("QI")
    assert verdict.verdict is Verdict.NOT_CHECKED
    assert verdict.is_valid is None
    assert verdict.reason == "no word list given: words not checked"


def test_checking_can_be_switched_off(ru_variant: Variant) -> None:
    off = dictionary_for(ru_variant, enabled=False)
    assert isinstance(off, NullDictionary)
    assert off.is_valid("ЩЫРБАК") is None


def test_unknown_dictionary_kind_is_a_clear_error(ru_variant: Variant) -> None:
    klingon = dataclasses.replace(ru_variant, dictionary="klingon")
    with pytest.raises(
        DictionaryError, match="unknown dictionary 'klingon'; known: de, en, erudit"
    ):
        dictionary_for(klingon)


def test_run_through_finds_the_run_both_ways() -> None:
    board = Board.from_rows([".К.", "С?Н", ".Т."])
    assert board.run_through((1, 1), across=True) == ((1, 0), (1, 1), (1, 2))
    assert board.run_through((1, 1), across=False) == ((0, 1), (1, 1), (2, 1))
    assert board.run_through((0, 1), across=True) == ((0, 1),)
    assert unknown_blanks(board) == [(1, 1)]


def test_blank_with_exactly_one_letter(ru_variant: Variant, ru: Dictionary) -> None:
    assert blank_candidates(Board.from_rows(["ЁЖ?К"]), ru_variant, ru) == {(0, 2): ["И"]}


def test_blank_with_several_letters(
    ru_variant: Variant, ru: Dictionary, erudit_variant: Variant, erudit: Dictionary
) -> None:
    letters = blank_candidates(Board.from_rows(["?ОТ"]), ru_variant, ru)[0, 0]
    assert {"К", "Р", "Т", "Л", "Д"} <= set(letters)
    assert "Ы" not in letters
    # ТОТ is a pronoun: a word in Скрэббл, not in Эрудит.
    erudit_letters = blank_candidates(Board.from_rows(["?ОТ"]), erudit_variant, erudit)[0, 0]
    assert "К" in erudit_letters
    assert "Т" not in erudit_letters


def test_blank_must_fit_the_cross_word_too(ru_variant: Variant, ru: Dictionary) -> None:
    # С?Н across and К?Т down: СОН/КОТ and САН/КАТ.
    board = Board.from_rows([".К.", "С?Н", ".Т."])
    assert blank_candidates(board, ru_variant, ru) == {(1, 1): ["А", "О"]}


def test_two_blanks_in_one_word_give_combinations(
    ru_variant: Variant, ru: Dictionary, erudit_variant: Variant, erudit: Dictionary
) -> None:
    board = Board.from_rows(["Ё??К"])
    spelled = ["Ё" + a[0, 1] + a[0, 2] + "К" for a in blank_assignments(board, ru_variant, ru)]
    assert spelled == ["ЁДОК", "ЁЖИК", "ЁЛОК", "ЁМОК", "ЁРИК"]
    spelled = [a[0, 1] + a[0, 2] for a in blank_assignments(board, erudit_variant, erudit)]
    assert spelled == ["ДО", "ЖИ", "РИ"]
    assert blank_candidates(board, ru_variant, ru) == {
        (0, 1): ["Д", "Ж", "Л", "М", "Р"],
        (0, 2): ["И", "О"],
    }


def test_blanks_in_separate_words_are_solved_apart(ru_variant: Variant, ru: Dictionary) -> None:
    board = Board.from_rows(["ЁЖ?К.", ".....", "?ОТ.."])
    candidates = blank_candidates(board, ru_variant, ru)
    assert candidates[0, 2] == ["И"]
    assert "К" in candidates[2, 0]


def test_unchecked_words_rule_no_letter_out(ru_variant: Variant) -> None:
    board = Board.from_rows(["?Ы"])
    candidates = blank_candidates(board, ru_variant, NullDictionary())
    assert candidates == {(0, 0): list(ru_variant.alphabet)}


def test_blank_search_needs_unknown_blanks(ru_variant: Variant, ru: Dictionary) -> None:
    board = Board.from_rows(["КОТ"])
    assert blank_candidates(board, ru_variant, ru) == {}
    with pytest.raises(ValueError, match="does not hold an unknown blank"):
        blank_assignments(board, ru_variant, ru, [(0, 0)])


# --- the English word list shipped for `en` games ---------------------------------------------


@pytest.fixture(scope="module")
def en() -> Dictionary:
    return dictionary_for(load_variant("en"))


@pytest.mark.parametrize(
    "word",
    # The sample game's words, two-letter words of both tournament lists, a Collins word, and
    # words of today's English that older lists lack.
    ["COWED", "TOWNS", "GRAVY", "LINES", "QI", "ZA", "XU", "JO", "AA", "OK", "QAT", "ZE", "VLOG"],
)
def test_the_shipped_english_list_accepts_played_words(en: Dictionary, word: str) -> None:
    verdict = en.check(word.lower())
    assert verdict.verdict is Verdict.VALID
    assert verdict.reason == "in the English word list"


@pytest.mark.parametrize(
    "word, misread",
    # What the cell reader confuses: I/L, O/Q, C/G, V/Y, E/F.
    [("LINES", "IINES"), ("CLAY", "CIAY"), ("QUOTE", "OUOTE"), ("COWED", "GOWED"),
     ("GRAVY", "GRAVV"), ("FEAST", "EEAST")],
)  # fmt: skip
def test_the_shipped_english_list_tells_a_word_from_its_misreading(
    en: Dictionary, word: str, misread: str
) -> None:
    assert en.is_valid(word) is True
    assert en.check(misread).reason == "not in the English word list"


def test_the_players_own_list_replaces_the_shipped_one(tmp_path) -> None:
    path = tmp_path / "nwl.txt"
    path.write_text("CAT\nZZZ\n", encoding="utf-8")
    own = dictionary_for(load_variant("en"), word_list=path)
    assert [own.is_valid(w) for w in ["ZZZ", "CAT", "QI"]] == [True, True, False]
    assert own.check("QI").reason == "not in the word list nwl.txt"


def test_an_en_game_on_the_service_checks_words_without_a_list(tmp_path) -> None:
    from test_storage import FakeReader, new_game, photo, reading

    from server.service import GameService
    from server.storage import Store

    reader = FakeReader()
    service = GameService(Store(str(tmp_path / "db.sqlite"), tmp_path / "data"), reader)
    # I or L at I8: only CLAY is a word, so the shipped list settles it.
    uncertain = reading({7: ".......CIAY...."}, {"I8": [("I", 0.6), ("L", 0.4)]})
    game_id = new_game(service, word_list=None)
    turn = service.post_photo(game_id, reader.add(photo(1), uncertain), None)
    assert turn["status"] == "committed" and turn["move"]["word"] == "CLAY"
    phony = service.play_move(game_id, "J7", "XAQ", None)
    assert phony["invalid_words"] == ["XAQ"]
    # Without the dictionary the photo is a question, not a guess.
    unchecked = new_game(service, word_list=None, dictionary=False)
    assert service.post_photo(unchecked, photo(1), None)["status"] == "needs_review"


def test_an_en_replay_on_the_command_line_checks_words_by_default(
    tmp_path, monkeypatch, capsys
) -> None:
    from test_storage import reading

    import vision.classify
    import vision.pipeline
    from scorekeeper.cli import main

    uncertain = reading({7: ".......CIAY...."}, {"I8": [("I", 0.6), ("L", 0.4)]})
    monkeypatch.setattr(vision.classify, "CellClassifier", lambda: None)
    monkeypatch.setattr(
        vision.pipeline, "read_board", lambda data, variant, model, corners=None: uncertain
    )
    photo = tmp_path / "turn.jpg"
    photo.write_bytes(b"a photo")
    replay = ["replay", "--variant", "en", "--players", "Ann,Ben", "--json", str(photo)]
    assert main(replay) == 0
    assert [m["word"] for m in json.loads(capsys.readouterr().out)["moves"]] == ["CLAY"]
    assert main([*replay, "--no-dictionary"]) == 1
    assert "several readings are possible" in capsys.readouterr().err
