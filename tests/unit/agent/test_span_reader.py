"""The offline extractive reader: answer types, candidate spans and the chosen span."""

from __future__ import annotations

import pytest

from nodes.core.answer_types import choice_options, question_shape
from nodes.core.span_candidates import Evidence, cell_kind, sentence_spans
from nodes.core.span_reader import read_answer
from state.reader_tuning import ReaderTuning


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When was the bridge opened?", "date"),
        ("In what year was the painter born?", "year"),
        ("How many people live in Springfield?", "number"),
        ("At the 2011 census, what was the population of the city where she was born?", "number"),
        ("Who directed the film?", "person"),
        ("The show was written by who?", "person"),
        ("Scott is a consultant who has worked with the mayor of what city?", "place"),
        ("Where is the museum?", "place"),
        ("What label released both films?", "entity"),
        ("Are Nolan and Kalathil both film directors?", "yesno"),
        ("Do Lafzon Ki Kahani, a remake of Always, released in which year?", "year"),
        ("Which band was formed first, The Exies or Circus Diablo?", "choice"),
    ],
)
def test_the_question_names_its_answer_type(question: str, kind: str) -> None:
    assert question_shape(question).kind == kind


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("Which band was formed first The Exies or Circus Diablo ?",
         ("The Exies", "Circus Diablo")),
        ("Which plant is larger, the Pterocarya or the Cotula?", ("Pterocarya", "Cotula")),
        ("Which came first the forming of The Dandy Warhols or the birth of Robert Young?",
         ("The Dandy Warhols", "Robert Young")),
        ("Who wrote the novel?", ()),
    ],
)  # fmt: skip
def test_an_a_or_b_question_names_two_options(question: str, options: tuple[str, ...]) -> None:
    assert choice_options(question) == options


def test_a_sentence_offers_dates_numbers_names_and_phrases() -> None:
    spans = {
        (s.text, s.kind)
        for s in sentence_spans(
            "Ezer Weizman (15 June 1924 – 24 April 2005) led 6,960 pilots of the Israeli Air Force."
        )
    }
    assert {("Ezer Weizman", "name"), ("15 June 1924", "date"), ("24 April 2005", "date")} <= spans
    assert {("6,960", "number"), ("Israeli Air Force", "name"), ("pilots", "phrase")} <= spans
    cells = ("1998", "March 3 , 2001", "12.5", "Tony Azevedo", "goalkeeper")
    assert [cell_kind(c) for c in cells] == ["year", "date", "number", "name", "phrase"]


def paragraph(rank: int, title: str, *sentences: str) -> Evidence:
    return Evidence(rank, title, sentences=sentences)


CURIE = paragraph(
    0,
    "Marie Curie",
    "Marie Curie was a Polish physicist who discovered polonium.",
    "She was born in Warsaw in 1867 and married Pierre Curie in 1895.",
)
NETWORK = paragraph(
    1,
    "Cartoon Network",
    "Cartoon Network is an American cable channel owned by Warner Bros. Discovery.",
    "It was founded by Betty Cohen and launched on October 1, 1992.",
)


@pytest.mark.parametrize(
    ("question", "evidence", "answer"),
    [
        ("In what year was Marie Curie born?", [CURIE], "1867"),
        ("In which city was Marie Curie born?", [CURIE], "Warsaw"),
        ("Whom did Marie Curie marry?", [CURIE], "Pierre Curie"),
        ("The show airs on a network founded by who?", [CURIE, NETWORK], "Betty Cohen"),
        ("When was the network that airs the show launched?", [NETWORK], "October 1, 1992"),
    ],
)
def test_the_reader_returns_the_span_not_the_sentence(
    question: str, evidence: list[Evidence], answer: str
) -> None:
    assert read_answer(question, evidence) == answer


def test_a_table_answer_is_the_cell_of_the_column_the_question_asks_for() -> None:
    table = Evidence(
        0,
        "United States at the 2000 Summer Olympics",
        header=("No", "Name", "Date of birth"),
        rows=(
            ("1", "Dan Hackett", "September 11 , 1970"),
            ("2", "Chi Kredell", "February 16 , 1971"),
        ),
    )
    assert read_answer("What is the date of birth of Chi Kredell?", [table]) == "February 16 , 1971"
    assert read_answer("Which player wore number 1?", [table]) == "Dan Hackett"


def test_closed_questions_get_an_option_or_yes_no() -> None:
    exies = paragraph(0, "The Exies", "The Exies are an American rock band formed in 1997.")
    diablo = paragraph(1, "Circus Diablo", "Circus Diablo is a rock band formed in 2004.")
    question = "Which band was formed first, Circus Diablo or The Exies?"
    assert read_answer(question, [diablo, exies]) == "The Exies"
    assert read_answer(question.replace("first", "later"), [diablo, exies]) == "Circus Diablo"
    nolan = paragraph(0, "Christopher Nolan", "Christopher Nolan is an English film director.")
    keane = paragraph(1, "Roy Keane", "Roy Keane is an Irish football manager.")
    assert (
        read_answer("Are Christopher Nolan and Roy Keane both film directors?", [nolan, keane])
        == "no"
    )
    assert read_answer("Is Christopher Nolan a film director?", [nolan]) == "yes"


def test_no_evidence_or_no_candidate_gives_no_answer() -> None:
    assert read_answer("Who wrote it?", []) is None
    assert read_answer("Is it red?", []) is None
    assert read_answer("Which came first, Warsaw or Paris?", []) is None
    assert read_answer("Who wrote it?", [paragraph(0, "Untitled", "it is.")]) is None


def test_spelled_counts_are_numbers_and_running_numbers_are_not_answers() -> None:
    career = paragraph(0, "Tony Azevedo", "Tony Azevedo is a five-time Olympian in water polo.")
    assert read_answer("How many times did Tony Azevedo play at the Olympics?", [career]) == (
        "five-time"
    )
    table = Evidence(
        0,
        "Squad",
        header=("No", "Name", "Caps"),
        rows=(("1", "Dan Hackett", "12"), ("2", "Chi Kredell", "30")),
    )
    assert read_answer("How many games did Chi Kredell play?", [table]) == "30"


def test_a_lifespan_says_born_and_a_city_state_pair_answers_by_its_part() -> None:
    weizman = paragraph(
        0,
        "Ezer Weizman",
        "Ezer Weizman (15 June 1924 – 24 April 2005) was the seventh President of Israel, "
        "first elected in 1993.",
    )
    assert read_answer("In what year was the seventh President of Israel born?", [weizman]) == (
        "1924"
    )
    assert read_answer("In what year did Ezer Weizman die?", [weizman]) == "2005"
    eagles = paragraph(
        0,
        "Philadelphia Eagles",
        "The Eagles are a football team based in Philadelphia, Pennsylvania.",
    )
    assert read_answer("The Eagles are based in what state?", [eagles]) == "Pennsylvania"
    assert read_answer("The Eagles are based in what city?", [eagles]) == (
        "Philadelphia, Pennsylvania"
    )


EAGLES = paragraph(
    0, "Philadelphia Eagles", "The Eagles are a football team based in Philadelphia, Pennsylvania."
)
DIABLO = paragraph(0, "Diablo (band)", "Diablo is a rock band formed in 2004.")
EXIES = paragraph(1, "The Exies", "The Exies are an American rock band formed in 1997.")


@pytest.mark.parametrize(
    ("question", "evidence", "tuning", "default", "changed"),
    [
        ("The Eagles are based in what state?", [EAGLES], ReaderTuning(city_factor=1.0),
         "Pennsylvania", "Philadelphia"),
        ("The Eagles are based in what city?", [EAGLES], ReaderTuning(joined_place_bonus=1.0),
         "Philadelphia, Pennsylvania", "Philadelphia"),
        # "Diablo" is half of "Circus Diablo": its evidence only while half the words suffice
        ("Which band was formed later, Circus Diablo or The Exies?", [DIABLO, EXIES],
         ReaderTuning(option_share=1.0), "Circus Diablo", "The Exies"),
    ],
)  # fmt: skip
def test_a_changed_reader_constant_changes_the_reader_decision(
    question: str, evidence: list[Evidence], tuning: ReaderTuning, default: str, changed: str
) -> None:
    assert read_answer(question, evidence) == default
    assert read_answer(question, evidence, ReaderTuning()) == default
    assert read_answer(question, evidence, tuning) == changed
