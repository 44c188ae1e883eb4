from tools.metric_terms import metric_inputs, metrics_named


def test_named_metrics_and_abbreviations_become_their_line_items() -> None:
    assert metrics_named("Has AMCOR's quick ratio improved?") == ["quick ratio"]
    assert metrics_named("What is the FY2022 ROA and the DPO?") == [
        "return on assets",
        "days payable outstanding",
    ]
    assert metric_inputs("the operating margin of FY2022") == ["operating income", "revenue"]
    # the longer name wins: "fixed asset turnover" is not "asset turnover"
    assert metrics_named("fixed asset turnover ratio") == ["fixed asset turnover"]


def test_words_inside_other_words_and_plain_questions_name_nothing() -> None:
    assert metrics_named("Who founded the Ebitdaville club and the capexian order?") == []
    assert metric_inputs("Which club won the 2003 Albanian Superliga?") == []


def test_shared_inputs_are_listed_once() -> None:
    inputs = metric_inputs("Compare working capital and the current ratio")
    assert inputs == ["total current assets", "total current liabilities"]
