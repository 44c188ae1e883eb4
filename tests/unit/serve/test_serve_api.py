"""The JSON API on the mini index: systems, search, components, ask, compare, and bad input."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from graph_agent.registry import SYSTEMS

QUESTION = "Which three physicists shared the 1903 Nobel Prize in Physics?"


def test_systems_lists_the_registry_and_the_backends(client: TestClient) -> None:
    body = client.get("/api/systems").json()
    assert [s["name"] for s in body["systems"]] == list(SYSTEMS)
    assert {s["name"] for s in body["systems"] if s["streams"]} >= {"fif"}
    assert body["backends"] == ["offline", "openai", "local"]


@pytest.mark.parametrize("mode", ["dense", "sparse", "hybrid"])
def test_search_returns_cards_with_why(client: TestClient, mode: str) -> None:
    body = client.get("/api/search", params={"q": "1903 Nobel Prize physics", "k": 4, "mode": mode})
    assert body.status_code == 200, body.text
    results = body.json()["results"]
    assert [r["rank"] for r in results] == [1, 2, 3, 4]
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    top = results[0]
    assert top["doc_id"] in top["component_id"] and top["title"] and top["snippet"] and top["why"]


def test_search_names_the_passage_that_earned_the_score(client: TestClient) -> None:
    results = client.get("/api/search", params={"q": "Marie Curie was born in Warsaw"}).json()
    by_sentence = [r for r in results["results"] if r["evidence"] != r["component_id"]]
    assert by_sentence and by_sentence[0]["evidence"] in by_sentence[0]["why"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"q": ""}, "q"),
        ({"q": "x" * 2001}, "q"),
        ({"q": "radium", "k": 0}, "k"),
        ({"q": "radium", "k": 101}, "k"),
        ({"q": "radium", "k": "ten"}, "k"),
        ({"q": "radium", "mode": "psychic"}, "mode"),
        ({}, "q"),
    ],
)
def test_bad_search_requests_get_a_422_naming_the_field(
    client: TestClient, params: dict[str, object], field: str
) -> None:
    response = client.get("/api/search", params=params)
    assert response.status_code == 422
    assert field in [error["loc"][-1] for error in response.json()["detail"]]


def test_a_component_comes_with_its_page_and_neighbours(client: TestClient) -> None:
    body = client.get("/api/components/nobel_prize_physics::t0").json()
    assert body["type"] == "table" and body["table"]["header"][0] == "Year"
    assert {d["doc_id"] for d in body["links_to"]} >= {"marie_curie", "pierre_curie"}
    assert body["highlight"]["component_id"] == "nobel_prize_physics::t0"
    assert "nobel_prize_physics::t0" in [part["component_id"] for part in body["page"]]
    assert all(child["type"] == "row" for child in body["children"])


def test_a_subcomponent_is_marked_inside_its_component(client: TestClient) -> None:
    body = client.get("/api/components/nobel_prize_physics::p0::s1").json()
    assert body["parent"] == "nobel_prize_physics::p0"
    assert body["highlight"] == {"component_id": "nobel_prize_physics::p0", "text": body["text"]}


def test_an_unknown_component_is_a_404_that_says_so(client: TestClient) -> None:
    response = client.get("/api/components/no_such::p9")
    assert response.status_code == 404
    assert "no component 'no_such::p9'" in response.json()["detail"]


def test_ask_runs_fif_with_a_thread_and_says_why_each_ranked(client: TestClient) -> None:
    response = client.post("/api/ask", json={"question": QUESTION, "k": 5})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["thread_id"] and body["system"] == "fif" and len(body["results"]) == 5
    assert all(r["why"].startswith("found at step") for r in body["results"])
    assert body["trace"] and {"subquery", "strategy", "success"} <= set(body["trace"][0])
    assert body["cost"]["work_ms"] > 0


def test_ask_the_dense_baseline(client: TestClient) -> None:
    body = client.post("/api/ask", json={"question": QUESTION, "system": "dense", "k": 3}).json()
    assert len(body["results"]) == 3 and body["trace"] == []


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"question": QUESTION, "system": "oracle"}, "unknown system 'oracle'; known: fif"),
        ({"question": "   "}, "the question is blank"),
        ({"question": QUESTION, "k": 500}, "less than or equal to 100"),
        ({"question": QUESTION, "backend": "magic"}, "'offline', 'openai' or 'local'"),
        ({"question": QUESTION, "thread_id": "../../etc"}, "should match pattern"),
        ({"question": QUESTION, "temperature": 2}, "Extra inputs are not permitted"),
        ({"text": QUESTION}, "Field required"),
    ],
)
def test_bad_ask_requests_get_a_422_that_says_what_was_wrong(
    client: TestClient, payload: dict[str, object], message: str
) -> None:
    response = client.post("/api/ask", json=payload)
    assert response.status_code == 422
    assert message in str(response.json()["detail"])


def test_malformed_json_is_a_422(client: TestClient) -> None:
    response = client.post(
        "/api/ask", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert "json_invalid" in response.text


def test_an_oversized_body_is_a_413(client: TestClient) -> None:
    response = client.post("/api/ask", json={"question": "x" * 70_000})
    assert response.status_code == 413
    assert "over 65536 bytes" in response.json()["detail"]


def test_a_body_without_its_length_is_a_411(client: TestClient) -> None:
    chunks = iter([b'{"question": "', b"radium", b'"}'])
    response = client.post("/api/ask", content=chunks, headers={"content-type": "application/json"})
    assert response.status_code == 411 and "Content-Length" in response.json()["detail"]


def test_compare_runs_each_system_side_by_side(client: TestClient) -> None:
    payload = {"question": QUESTION, "systems": ["dense", "fif", "dense"], "k": 3}
    body = client.post("/api/compare", json=payload).json()
    assert list(body["runs"]) == ["dense", "fif"]
    assert all(len(run["results"]) == 3 for run in body["runs"].values())


def test_the_page_and_its_assets_are_served_from_the_package(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert "http" not in page.text.replace('href="/docs"', "")  # nothing from a CDN
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/openapi.json").json()["paths"]["/api/search"]


def test_the_api_docs_load_nothing_from_a_cdn(client: TestClient) -> None:
    docs = client.get("/docs")
    assert docs.status_code == 200 and "swagger-ui-bundle.js" in docs.text
    assert "cdn" not in docs.text.lower() and "https://" not in docs.text
    script = re.search(r'src="([^"]+swagger-ui-bundle.js)"', docs.text)
    assert script and client.get(script.group(1)).status_code == 200
