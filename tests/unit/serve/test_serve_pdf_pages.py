"""PDF pages through the server: cards name their page, pages render as PNG, the file opens.

Only the file the index recorded for a document is served; a vanished file, a page out of
range and a missing pdf extra each get a status and a message that says what to do.
"""

from __future__ import annotations

import builtins
import io
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from serve import pdf_pages
from serve.settings import ServedIndexSpec
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE

PDF_DOC = "acme_2023_10k"
FILING = {"index": "filing"}


def page_count(index_dir: Path) -> int:
    return int(LayeredGraph.load(index_dir / GRAPH_FILE).node(PDF_DOC).attrs["page_count"])


def test_the_index_records_the_pdf_it_read(filing_index: Path) -> None:
    attrs = LayeredGraph.load(filing_index / GRAPH_FILE).node(PDF_DOC).attrs
    assert Path(attrs["source"]) == filing_index.parent / f"{PDF_DOC}.pdf"
    assert Path(attrs["source"]).is_absolute() and attrs["page_count"] >= 2


def test_a_pdf_result_names_its_page_and_an_html_one_does_not(client: TestClient) -> None:
    found = client.get("/api/search", params={"q": "Note 2 Revenue Recognition", **FILING}).json()
    for result in found["results"]:
        assert result["pdf_page"] == result["pages"][0]  # both zero-indexed
        assert result["region"]["page"] == result["pdf_page"]
        x1, y1, x2, y2 = result["region"]["bbox"]
        assert 0 <= x1 <= x2 and 0 <= y1 <= y2
    mini = client.get("/api/search", params={"q": "radium"}).json()["results"]
    assert all(result["pdf_page"] is None and result["region"] is None for result in mini)


def test_a_page_renders_as_png_and_is_cached(client: TestClient, served_filing: Path) -> None:
    pdf_pages._rendered.cache_clear()
    url = f"/api/documents/{PDF_DOC}/pages/1.png"
    first = client.get(url, params=FILING)
    assert first.status_code == 200 and first.headers["content-type"] == "image/png"
    image = Image.open(io.BytesIO(first.content))
    assert image.format == "PNG" and 800 < image.height < 2400 and image.width < image.height
    assert client.get(url, params=FILING).content == first.content
    assert pdf_pages._rendered.cache_info().hits == 1


def test_the_original_pdf_opens_inline(client: TestClient, filing_index: Path) -> None:
    response = client.get(f"/api/documents/{PDF_DOC}/file", params=FILING)
    assert response.status_code == 200 and response.headers["content-type"] == "application/pdf"
    assert response.headers["content-disposition"].startswith("inline")
    assert response.content == (filing_index.parent / f"{PDF_DOC}.pdf").read_bytes()


def test_a_page_out_of_range_names_the_valid_range(client: TestClient, served_filing: Path) -> None:
    pages = page_count(served_filing)
    response = client.get(f"/api/documents/{PDF_DOC}/pages/{pages}.png", params=FILING)
    assert response.status_code == 404
    assert f"0..{pages - 1} ({pages} pages)" in response.json()["detail"]
    assert client.get(f"/api/documents/{PDF_DOC}/pages/-1.png", params=FILING).status_code == 422


@pytest.mark.parametrize(
    ("doc_id", "message"),
    [
        ("marie_curie", "was not built from a PDF"),
        ("marie_curie::p0", "no document 'marie_curie::p0' in index 'mini'"),
        ("no_such_doc", "no document 'no_such_doc'"),
        ("etc%2Fpasswd", "Not Found"),  # a slash never reaches the route
    ],
)
def test_only_pdf_documents_of_the_index_are_served(
    client: TestClient, doc_id: str, message: str
) -> None:
    for route in ("pages/0.png", "file"):
        response = client.get(f"/api/documents/{doc_id}/{route}")
        assert response.status_code == 404 and message in response.json()["detail"]


def test_a_vanished_pdf_is_a_404_naming_the_file(
    filing_index: Path, tmp_path: Path, make_client: Callable[..., TestClient]
) -> None:
    folder = Path(shutil.copytree(filing_index.parent, tmp_path / "moved"))
    graph = LayeredGraph.load(folder / "index" / GRAPH_FILE)
    gone = tmp_path / "gone.pdf"
    graph.g.nodes[PDF_DOC]["source"] = str(gone)
    graph.save(folder / "index" / GRAPH_FILE)
    client = make_client(indices=(ServedIndexSpec("only", folder / "index"),))
    for route in ("pages/0.png", "file"):
        response = client.get(f"/api/documents/{PDF_DOC}/{route}")
        assert response.status_code == 404
        assert f"the PDF of {PDF_DOC!r} is gone: {gone} no longer exists" in response.text


def test_without_pypdfium2_a_page_is_a_501_naming_the_extra(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_import = builtins.__import__

    def no_pdfium(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("pypdfium2"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    pdf_pages._rendered.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_pdfium)
    response = client.get(f"/api/documents/{PDF_DOC}/pages/0.png", params=FILING)
    assert response.status_code == 501
    assert response.json()["detail"] == (
        "rendering PDF pages needs pypdfium2: "
        "pip install -c constraints.txt -e '.[pdf]' in the FiF checkout"
    )


def test_a_page_names_its_size_in_points(client: TestClient) -> None:
    response = client.get(f"/api/documents/{PDF_DOC}/pages/0", params=FILING)
    assert response.status_code == 200
    facts = response.json()
    assert (facts["width"], facts["height"]) == (595.28, 841.89)  # fpdf2's A4
    assert facts["page"] == 0 and facts["page_count"] >= 2 and facts["doc_id"] == PDF_DOC


def test_the_scale_sets_the_pixels_per_point_in_bounded_steps(
    client: TestClient, served_filing: Path
) -> None:
    url = f"/api/documents/{PDF_DOC}/pages/0.png"
    widths = {}
    for scale in (0.5, 1.0, 1.1):  # 1.1 rounds to the 1.0 step: the same cached image
        png = client.get(url, params={**FILING, "scale": scale}).content
        widths[scale] = Image.open(io.BytesIO(png)).width
    assert widths == {0.5: 298, 1.0: 596, 1.1: 596}  # pdfium rounds up
    for scale in (0.1, 3.5, "nan"):
        refused = client.get(url, params={**FILING, "scale": scale})
        assert refused.status_code == 422, scale


@pytest.mark.parametrize(
    "route",
    [
        f"/api/documents/{PDF_DOC}/pages/999999999.png",  # past the bound before any read
        f"/api/documents/{PDF_DOC}/pages/1e3.png",
        f"/api/documents/{PDF_DOC}/pages/one",
    ],
)
def test_page_numbers_are_bounded_integers(client: TestClient, route: str) -> None:
    assert client.get(route, params=FILING).status_code == 422


@pytest.mark.parametrize(
    "doc_id",
    ["..", "%2e%2e", "..%2f..%2fetc%2fpasswd", "acme_2023_10k%2f..", "%00", "%2fetc%2fpasswd"],
)
def test_a_document_id_cannot_name_a_path(client: TestClient, doc_id: str) -> None:
    for route in ("pages/0.png", "pages/0", "file"):
        response = client.get(f"/api/documents/{doc_id}/{route}", params=FILING)
        assert response.status_code == 404, (doc_id, route)
        assert "root:" not in response.text


def served_copy(
    filing_index: Path, tmp_path: Path, make_client: Callable[..., TestClient]
) -> tuple[Path, Path, Callable[[], TestClient]]:
    """Copy the filing index and its PDF; return the PDF, the graph file and a client maker."""
    folder = Path(shutil.copytree(filing_index.parent, tmp_path / "copy"))
    graph = LayeredGraph.load(folder / "index" / GRAPH_FILE)
    pdf = folder / f"{PDF_DOC}.pdf"
    graph.g.nodes[PDF_DOC]["source"] = str(pdf.resolve())
    graph.save(folder / "index" / GRAPH_FILE)
    spec = (ServedIndexSpec("only", folder / "index"),)
    return pdf, folder / "index" / GRAPH_FILE, lambda: make_client(indices=spec)


def test_a_symlink_put_in_place_of_the_pdf_is_refused(
    filing_index: Path, tmp_path: Path, make_client: Callable[..., TestClient]
) -> None:
    pdf, _, client_of = served_copy(filing_index, tmp_path, make_client)
    secret = tmp_path / "secret.pdf"
    secret.write_bytes(pdf.read_bytes())  # even a real PDF: only the recorded file is read
    pdf.unlink()
    pdf.symlink_to(secret)
    client = client_of()
    for route in ("pages/0.png", "pages/0", "file"):
        response = client.get(f"/api/documents/{PDF_DOC}/{route}")
        assert response.status_code == 403
        assert "now resolves to another file" in response.json()["detail"]


def test_a_pdf_replaced_by_another_kind_of_file_is_a_404(
    filing_index: Path, tmp_path: Path, make_client: Callable[..., TestClient]
) -> None:
    pdf, _, client_of = served_copy(filing_index, tmp_path, make_client)
    pdf.write_text("root:x:0:0:root:/root:/bin/bash\n")
    response = client_of().get(f"/api/documents/{PDF_DOC}/file")
    assert response.status_code == 404 and "is no longer a PDF" in response.json()["detail"]
    assert "root:x" not in response.text


@pytest.mark.parametrize("source", ["relative/acme.pdf", "/etc/passwd"])
def test_a_recorded_source_that_is_no_absolute_pdf_path_is_not_read(
    filing_index: Path,
    tmp_path: Path,
    make_client: Callable[..., TestClient],
    source: str,
) -> None:
    _, graph_file, client_of = served_copy(filing_index, tmp_path, make_client)
    graph = LayeredGraph.load(graph_file)
    graph.g.nodes[PDF_DOC]["source"] = source
    graph.save(graph_file)
    response = client_of().get(f"/api/documents/{PDF_DOC}/file")
    assert response.status_code == 404 and "not an absolute path of a .pdf" in response.text
