"""Who may call the server and which files it serves: the token rule, settings, eval folders."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from serve.app import create_app
from serve.settings import ServedIndexSpec, ServeSettings, is_loopback
from tools.errors import ConfigError

TOKEN = "a-long-enough-test-token"


def test_with_a_token_every_api_call_needs_it(make_client: Callable[..., TestClient]) -> None:
    client = make_client(token=TOKEN)
    refused = client.get("/api/systems")
    assert refused.status_code == 401 and "Authorization: Bearer" in refused.json()["detail"]
    assert client.get("/api/systems", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert (
        client.get("/api/systems", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    )
    assert client.get("/api/systems", params={"token": TOKEN}).status_code == 200


def test_with_a_token_the_page_and_its_files_need_it_too(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(token=TOKEN)
    for path in ("/", "/static/app.js", "/docs", "/openapi.json"):
        assert client.get(path).status_code == 401, path
    opened = client.get("/", params={"token": TOKEN})  # the link a user is given
    assert opened.status_code == 200
    cookie = opened.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert client.get("/static/app.js").status_code == 200  # the browser sends the cookie
    assert client.get("/api/systems").status_code == 200
    client.cookies.clear()
    client.cookies.set("fif_token", "wrong-wrong-wrong-wrong")
    assert client.get("/static/app.js").status_code == 401


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("0.0.0.0", False)],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def one(path: Path) -> tuple[ServedIndexSpec, ...]:
    return (ServedIndexSpec.parse(path),)


def test_another_interface_needs_a_token(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--host 0.0.0.0 serves other machines; set --token"):
        ServeSettings(one(tmp_path), host="0.0.0.0").checked()
    with pytest.raises(ConfigError, match="too short"):
        ServeSettings(one(tmp_path), host="0.0.0.0", token="short").checked()
    assert ServeSettings(one(tmp_path), host="0.0.0.0", token=TOKEN).checked().token == TOKEN


def test_missing_folders_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--index .*no such folder"):
        ServeSettings(one(tmp_path / "nope")).checked()
    with pytest.raises(ConfigError, match="--runs .*no such folder"):
        ServeSettings(one(tmp_path), runs_dir=tmp_path / "nope").checked()


def test_fif_serve_refuses_a_public_bind_without_a_token(
    run_fif_main: Callable[..., tuple[object, str, str]], tmp_path: Path
) -> None:
    code, _, err = run_fif_main("serve", "--index", str(tmp_path), "--host", "0.0.0.0")
    assert code == 2 and "set --token" in err


def test_fif_serve_without_its_packages_names_the_install_from_the_checkout(
    run_fif_main: Callable[..., tuple[object, str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)  # none is installed
    code, _, err = run_fif_main("serve", "--index", str(tmp_path))
    assert code == 2 and "pip install -c constraints.txt -e '.[serve]'" in err


def test_eval_runs_are_listed_with_summary_results_and_plots(client: TestClient) -> None:
    assert client.get("/api/evals").json()["runs"] == [{"name": "mini", "plots": 1}]
    run = client.get("/api/evals/run", params={"name": "mini"}).json()
    assert "| fif | 0.5 |" in run["summary_md"] and run["plots"] == ["recall_at_k.png"]
    assert {(r["system"], tuple(r["top"]), r["error"]) for r in run["results"]} == {
        ("fif", ("a::p0", "b::p1"), None),
        ("dense", (), "RuntimeError: boom"),
    }
    plot = client.get("/api/evals/file/recall_at_k.png", params={"name": "mini"})
    assert plot.status_code == 200 and plot.headers["content-type"] == "image/png"


@pytest.mark.parametrize(
    ("name", "file", "status"),
    [
        ("mini", "secret.txt", 400),
        ("mini", "absent.png", 404),
        ("..", "outside.png", 403),
        ("mini/../..", "outside.png", 403),
        ("/etc", "passwd.png", 403),
    ],
)
def test_eval_files_never_leave_the_runs_folder(
    client: TestClient, name: str, file: str, status: int
) -> None:
    response = client.get(f"/api/evals/file/{file}", params={"name": name})
    assert response.status_code == status, response.text
    assert response.json()["detail"]


def test_eval_runs_outside_or_unknown_are_refused(client: TestClient) -> None:
    assert client.get("/api/evals/run", params={"name": "../.."}).status_code == 403
    assert client.get("/api/evals/run", params={"name": "nothing"}).status_code == 404


def test_without_a_runs_folder_evals_are_empty(make_client: Callable[..., TestClient]) -> None:
    client = make_client(runs=False)
    assert client.get("/api/evals").json() == {"runs": []}
    missing = client.get("/api/evals/run", params={"name": "mini"})
    assert missing.status_code == 404 and "--runs DIR" in missing.json()["detail"]


@pytest.mark.parametrize("planted", ["regressions.md", "summary.md", "results.jsonl", "plot.png"])
def test_a_run_file_linked_out_of_the_runs_folder_is_refused(
    served_index: Path, tmp_path: Path, planted: str
) -> None:
    secret = tmp_path / "secret"
    secret.write_text("root:x:0:0:secret-line\n")
    runs = tmp_path / "runs"
    (runs / "r1").mkdir(parents=True)
    (runs / "r1" / "run_config.json").write_text("{}")
    (runs / "r1" / planted).symlink_to(secret)
    settings = ServeSettings(one(served_index), runs_dir=runs).checked()
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        run = client.get("/api/evals/run", params={"name": "r1"})
        plot = client.get(f"/api/evals/file/{planted}", params={"name": "r1"})
        listed = client.get("/api/evals").json()["runs"]
    assert "secret-line" not in run.text and "secret-line" not in plot.text
    assert plot.status_code == 403 or (planted == "results.jsonl" and plot.status_code == 400)
    if planted == "plot.png":
        assert run.status_code == 200 and run.json()["plots"] == [] and listed[0]["plots"] == 0
    else:
        assert run.status_code == 403


def test_a_run_folder_linked_out_of_the_runs_folder_is_not_listed(
    served_index: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "summary.md").write_text("secret-summary")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "r2").symlink_to(outside, target_is_directory=True)
    settings = ServeSettings(one(served_index), runs_dir=runs).checked()
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        assert client.get("/api/evals").json()["runs"] == []
        refused = client.get("/api/evals/run", params={"name": "r2"})
    assert refused.status_code == 403 and "secret-summary" not in refused.text
