"""The landing's overview of an index: its counts and example starting points."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_the_overview_counts_the_index_and_offers_its_own_titles(client: TestClient) -> None:
    listed = {i["name"]: i["documents"] for i in client.get("/api/indices").json()["indices"]}
    got = client.get("/api/overview", params={"index": "mini"}).json()
    assert got["index"] == "mini" and got["documents"] == listed["mini"]
    assert got["counts"]["document"] == listed["mini"] and got["counts"]["paragraph"] > 0
    examples = got["examples"]
    assert 1 <= len(examples) <= 4 and all(e["title"] for e in examples)
    for example in examples:  # each example is a real document of that index
        opened = client.get(f"/api/components/{example['doc_id']}", params={"index": "mini"})
        assert opened.status_code == 200 and opened.json()["title"] == example["title"]
    assert client.get("/api/overview", params={"index": "filing"}).json()["documents"] == 1
