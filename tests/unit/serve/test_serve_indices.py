"""One server, two indices: the picker's list, `?index=NAME` on every route, threads apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from serve.settings import ServedIndexSpec, ServeSettings
from tools.corpus_index import open_index
from tools.errors import ConfigError

PDF_DOC = "acme_2023_10k"


def test_the_indices_are_listed_first_one_the_default(client: TestClient) -> None:
    body = client.get("/api/indices").json()
    assert [entry["name"] for entry in body["indices"]] == ["mini", "filing"]
    assert body["default"] == "mini"
    assert body["indices"][1]["documents"] == 1


def test_search_reads_the_index_the_request_names(client: TestClient) -> None:
    mini = client.get("/api/search", params={"q": "anvil revenue", "k": 3}).json()
    filing = client.get("/api/search", params={"q": "anvil revenue", "k": 3, "index": "filing"})
    assert mini["index"] == "mini" and filing.json()["index"] == "filing"
    assert {r["doc_id"] for r in filing.json()["results"]} == {PDF_DOC}
    assert PDF_DOC not in {r["doc_id"] for r in mini["results"]}


def test_a_component_opens_only_in_its_own_index(client: TestClient) -> None:
    found = client.get("/api/search", params={"q": "revenue", "k": 1, "index": "filing"}).json()
    component_id = found["results"][0]["component_id"]
    opened = client.get(f"/api/components/{component_id}", params={"index": "filing"})
    assert opened.status_code == 200 and opened.json()["index"] == "filing"
    elsewhere = client.get(f"/api/components/{component_id}")
    assert elsewhere.status_code == 404 and "index 'mini'" in elsewhere.json()["detail"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/search?q=radium"),
        ("GET", "/api/components/marie_curie"),
        ("GET", "/api/threads"),
        ("GET", f"/api/documents/{PDF_DOC}/pages/0.png"),
        ("POST", "/api/ask"),
    ],
)
def test_an_unknown_index_is_a_404_listing_the_valid_ones(
    client: TestClient, method: str, path: str
) -> None:
    body = {"question": "Who discovered radium?"} if method == "POST" else None
    separator = "&" if "?" in path else "?"
    response = client.request(method, f"{path}{separator}index=nope", json=body)
    assert response.status_code == 404
    assert response.json()["detail"] == (
        "no index 'nope' on this server; valid: mini, filing (GET /api/indices)"
    )


def test_a_malformed_index_name_is_a_422(client: TestClient) -> None:
    response = client.get("/api/threads", params={"index": "../etc"})
    assert response.status_code == 422 and response.json()["detail"][0]["loc"][-1] == "index"


def test_threads_live_with_their_index(client: TestClient, served_filing: Path) -> None:
    ask = {"question": "How is revenue recognised?", "thread_id": "filing-thread-1", "k": 3}
    ran = client.post("/api/ask", params={"index": "filing"}, json=ask)
    assert ran.status_code == 200, ran.text
    assert ran.json()["index"] == "filing" and ran.json()["results"]
    assert (served_filing / "checkpoints.sqlite").is_file()
    filing = client.get("/api/threads", params={"index": "filing"}).json()["threads"]
    mini = client.get("/api/threads").json()["threads"]
    assert "filing-thread-1" in [t["thread_id"] for t in filing]
    assert "filing-thread-1" not in [t["thread_id"] for t in mini]
    log = client.get("/api/threads/filing-thread-1/log", params={"index": "filing"})
    assert log.status_code == 200 and log.json()["done"]
    assert client.get("/api/threads/filing-thread-1/log").status_code == 404


def test_indices_with_the_same_embedder_share_one_model(
    served_index: Path, served_filing: Path, client: TestClient
) -> None:
    assert open_index(served_index).text_embedder is open_index(served_filing).text_embedder


@pytest.mark.parametrize(
    ("option", "name"),
    [("mini=/tmp/x", "mini"), ("/tmp/some-index", "some-index"), ("x=/tmp/a=b", "x")],
)
def test_index_options_name_their_index(option: str, name: str) -> None:
    assert ServedIndexSpec.parse(option).name == name


def test_a_folder_name_that_is_no_index_name_asks_for_one() -> None:
    with pytest.raises(ConfigError, match="name the index, NAME=DIR"):
        ServedIndexSpec.parse("/tmp/my index")


def test_two_indices_need_two_names(tmp_path: Path) -> None:
    (tmp_path / "a" / "index").mkdir(parents=True)
    (tmp_path / "b" / "index").mkdir(parents=True)
    twice = tuple(ServedIndexSpec.parse(tmp_path / d / "index") for d in "ab")
    with pytest.raises(ConfigError, match="two indices are named index; name them apart"):
        ServeSettings(twice).checked()
    renamed = (twice[0], ServedIndexSpec.parse(f"b={tmp_path / 'b' / 'index'}"))
    assert [spec.name for spec in ServeSettings(renamed).checked().indices] == ["index", "b"]
