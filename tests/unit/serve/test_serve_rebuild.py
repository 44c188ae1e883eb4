"""A build and a server on one index folder: one writer, reads go on mid-build, a reload after."""

from __future__ import annotations

import json
import operator
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, TypedDict

import pytest
from fastapi.testclient import TestClient
from langgraph.graph import END, START, StateGraph

from corpus_builder.build import build
from serve import runs
from serve.app import create_app
from serve.events import EventLogs
from serve.settings import ServedIndexSpec, ServeSettings
from state.settings import RunSettings
from tools.corpus_index import open_index, reopen_index
from tools.errors import IndexBusyError
from tools.index_lock import being_written, build_stamp, writer_lock
from tools.index_versions import live_dir


def test_a_second_writer_is_refused_at_once(tmp_path: Path) -> None:
    with writer_lock(tmp_path):
        assert being_written(tmp_path)
        with pytest.raises(IndexBusyError, match=f"pid {os.getpid()}"):
            with writer_lock(tmp_path):
                pass
        with pytest.raises(IndexBusyError, match="another --index folder"):
            build(tmp_path / "no-corpus", tmp_path)  # refused before it reads anything
    assert not being_written(tmp_path)
    with writer_lock(tmp_path):  # free again
        pass


def test_serve_reads_the_opened_version_during_a_build_and_reopens_after_it(
    mini_index: Path, mini_bundle: Path, tmp_path: Path, hash_build: Callable[..., object]
) -> None:
    index = Path(shutil.copytree(mini_index, tmp_path / "index"))
    settings = ServeSettings((ServedIndexSpec("mini", index),)).checked()
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        entry = client.app.state.served.indices["mini"]  # type: ignore[attr-defined]
        opened = entry.index
        assert client.get("/api/search", params={"q": "Curie"}).status_code == 200
        with writer_lock(index):  # a build is writing its staging version
            during = client.get("/api/search", params={"q": "Curie"})
            assert during.status_code == 200 and during.json()["results"]
            assert entry.index is opened
        hash_build(mini_bundle, index)  # publishes a new version
        assert live_dir(index) != index and entry.stamp != build_stamp(index)
        after = client.get("/api/search", params={"q": "Curie"})
        assert after.status_code == 200 and after.json()["results"]
        assert entry.index is not opened and entry.stamp == build_stamp(index)
        assert entry.index.data_dir == live_dir(index)


NEW_PAGE = {
    "doc_id": "zorblatt_tower",
    "title": "Zorblatt Tower",
    "url": "https://example.org/Zorblatt_Tower",
    "components": [
        {
            "component_id": "zorblatt_tower::p0",
            "type": "paragraph",
            "text": "Zorblatt Tower is a radio mast near Warsaw, finished in 1974.",
            "links": ["warsaw"],
        }
    ],
}


def test_searches_during_an_update_all_answer_and_then_see_the_new_page(
    mini_bundle: Path, tmp_path: Path, hash_build: Callable[..., object]
) -> None:
    index = tmp_path / "index"
    hash_build(mini_bundle, index)
    corpus = mini_bundle / "corpus.jsonl"
    corpus.write_text(corpus.read_text() + json.dumps(NEW_PAGE) + "\n")
    settings = ServeSettings((ServedIndexSpec("mini", index),)).checked()
    params = {"q": "Zorblatt radio mast", "mode": "sparse"}
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        update = threading.Thread(
            target=hash_build, args=(mini_bundle, index), kwargs={"update": True}
        )
        statuses, during = [], 0
        update.start()
        while update.is_alive() or not statuses:
            writing = being_written(index)
            response = client.get("/api/search", params=params)
            statuses.append(response.status_code)
            during += writing and being_written(index)
        update.join()
        assert set(statuses) == {200} and during > 0, (statuses, during)
        after = client.get("/api/search", params=params).json()["results"]
        assert after and after[0]["doc_id"] == "zorblatt_tower"


class Reads(TypedDict, total=False):
    versions: Annotated[list[str], operator.add]


def test_a_streamed_run_reads_one_version_when_the_server_reopens_mid_run(
    mini_index: Path,
    mini_bundle: Path,
    tmp_path: Path,
    hash_build: Callable[..., object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    index = Path(shutil.copytree(mini_index, tmp_path / "index", symlinks=True))

    def read(state: Reads) -> Reads:
        return {"versions": [str(open_index(index).data_dir)]}

    def read_then_rebuild(state: Reads) -> Reads:
        found = read(state)
        hash_build(mini_bundle, index)
        reopen_index(index)  # what the server does on its next request
        return found

    graph = StateGraph(Reads)
    graph.add_node("first", read_then_rebuild)
    graph.add_node("second", read)
    graph.add_edge(START, "first")
    graph.add_edge("first", "second")
    graph.add_edge("second", END)
    spec = SimpleNamespace(compiled=lambda saver: graph.compile(checkpointer=saver))
    monkeypatch.setattr(runs, "get_system", lambda name: spec)
    request = runs.RunRequest("t1", "fif", "q", RunSettings(index_dir=str(index)))
    logs = EventLogs()
    logs.open(request.key)
    values, _ = runs._streamed(logs, open_index(index).graph, request)
    first, second = values["versions"]
    assert first == second != str(live_dir(index))
