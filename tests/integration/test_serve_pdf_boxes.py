"""`fif serve` draws a PDF region's box where the region is printed, in a real browser.

A generated PDF holds, on its second page, a solid blue picture at a known place with two
lines of text over it and a caption under it. Built into an index (hash embedder, no OCR
needed: the lines are in the text layer), served, searched in Chromium: the result names
its page and "Figure 1"; the component panel shows the rendered page with the box drawn
over the blue pixels and at the region's box scaled to the image, within a few pixels, at
desktop width and at 390 px; hovering a line read inside the region draws that line's box.
"""

from __future__ import annotations

import io
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright (dev extra)")
from fpdf import FPDF  # noqa: E402
from PIL import Image  # noqa: E402
from playwright.sync_api import Locator, Page, expect  # noqa: E402

pytest.register_assert_rewrite("browser_server")  # a plugin of this module

from browser_server import STEP_SECONDS, Server, shot  # noqa: E402

pytestmark = pytest.mark.integration
pytest_plugins = ["browser_server"]

DOC = "foundry"
PICTURE_BOX = (120.0, 300.0, 420.0, 480.0)
"""Where the blue picture is printed on page 1 (x1, y1, x2, y2; points, top-left origin)."""
BLUE = (30, 60, 200)
TOLERANCE_PX = 3.0
FIGURE = f"{DOC}::i0"


def write_pdf(path: Path) -> Path:
    """Write a letter PDF: a text page, then the blue picture with its lines and caption."""
    pdf = FPDF(unit="pt", format="letter")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=11)
    pdf.add_page()
    pdf.set_xy(72, 90)
    pdf.multi_cell(450, 14, "The foundry casts anvils. Its output is shown in Figure 1.")
    pdf.add_page()
    pdf.set_xy(72, 90)
    pdf.multi_cell(450, 14, "This page shows the blue block of the foundry output.")
    picture = path.with_suffix(".png")
    Image.new("RGB", (300, 180), BLUE).save(picture)
    x1, y1, x2, y2 = PICTURE_BOX
    pdf.image(str(picture), x1, y1, x2 - x1, y2 - y1)
    pdf.set_text_color(255, 255, 255)
    pdf.text(x1 + 20, y1 + 40, "Foundry output 2023")
    pdf.text(x1 + 20, y1 + 80, "Blue block 4200 tons")
    pdf.set_text_color(0, 0, 0)
    pdf.text(x1, y2 + 20, "Figure 1: The blue block of the foundry")
    pdf.output(str(path))
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Build the PDF into an index with the hash embedder and serve it as `boxes`."""
    from corpus_builder.build import BuildOptions, build

    folder = tmp_path_factory.mktemp("pdf-boxes")
    pdf = write_pdf(folder / f"{DOC}.pdf")
    build(pdf, folder / "index", BuildOptions(text_embedder="hash:64", show_progress=False))
    (folder / "runs").mkdir()
    running = Server(["--index", f"boxes={folder / 'index'}"], folder / "runs", folder / "log")
    running.start()
    try:
        yield running
    finally:
        running.stop()


def get_json(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as response:
        found: dict[str, Any] = json.loads(response.read())
    return found


def blue_pixels(url: str) -> tuple[int, int, int, int]:
    """Return the box of the blue picture's pixels in the rendered page (pixels)."""
    with urllib.request.urlopen(url, timeout=10) as response:
        image = Image.open(io.BytesIO(response.read())).convert("RGB")
    mask = Image.eval(image.split()[2], lambda b: 255 if b > 150 else 0)  # blue channel
    red = Image.eval(image.split()[0], lambda r: 255 if r < 90 else 0)
    box = Image.composite(mask, Image.new("L", image.size, 0), red).getbbox()
    assert box is not None, "no blue pixels on the rendered page"
    return box


def expect_box_at(page: Page, box: Locator, bbox: list[float], size: dict[str, Any]) -> None:
    """Check a drawn box sits at `bbox` (points) scaled to the page image, within tolerance."""
    page.locator("#page-view img").evaluate("img => img.decode()")
    image = page.locator("#page-view img").bounding_box()
    drawn = box.bounding_box()
    assert image and drawn, "the page image or its box is not laid out"
    sx, sy = image["width"] / size["width"], image["height"] / size["height"]
    want = (
        image["x"] + bbox[0] * sx,
        image["y"] + bbox[1] * sy,
        bbox[2] - bbox[0],
        bbox[3] - bbox[1],
    )
    got = (drawn["x"], drawn["y"], drawn["width"] / sx, drawn["height"] / sy)
    assert abs(got[0] - want[0]) <= TOLERANCE_PX and abs(got[1] - want[1]) <= TOLERANCE_PX, (
        got,
        want,
    )
    assert abs(got[2] - want[2]) * sx <= TOLERANCE_PX and abs(got[3] - want[3]) * sy <= TOLERANCE_PX


def check_the_figure(
    page: Page, server: Server, region: dict[str, Any], size: dict[str, Any]
) -> None:
    """The figure's box is at its region and over the blue pixels of the rendered page."""
    img = page.locator("#page-view img")
    expect(img).to_be_visible()
    img.evaluate("img => img.decode()")
    own = page.locator("#page-view .box.own")
    expect(own).to_have_attribute("data-id", FIGURE)
    expect_box_at(page, own, region["bbox"], size)
    src = img.get_attribute("src") or ""
    px1, py1, px2, py2 = blue_pixels(server.url + src)
    natural = img.evaluate("img => [img.naturalWidth, img.naturalHeight]")
    shown, drawn = img.bounding_box(), own.bounding_box()
    assert shown and drawn
    scale = shown["width"] / natural[0]
    assert abs(drawn["x"] - (shown["x"] + px1 * scale)) <= TOLERANCE_PX, (drawn, px1, scale)
    assert abs(drawn["y"] - (shown["y"] + py1 * scale)) <= TOLERANCE_PX, (drawn, py1, scale)
    assert abs(drawn["x"] + drawn["width"] - (shown["x"] + px2 * scale)) <= TOLERANCE_PX
    assert abs(drawn["y"] + drawn["height"] - (shown["y"] + py2 * scale)) <= TOLERANCE_PX


def test_a_region_box_is_drawn_over_the_region_at_any_width(server: Server, page: Page) -> None:
    api = server.url + "/api"
    region = get_json(f"{api}/components/{FIGURE}")["region"]
    assert region["page"] == 1
    assert [round(v) for v in region["bbox"]] == [round(v) for v in PICTURE_BOX]
    size = get_json(f"{api}/documents/{DOC}/pages/1")
    page.goto(server.url + "/#tab=search")
    page.select_option("#search-mode", "sparse")
    page.fill("#search-q", "blue block foundry output 2023")
    page.click("#search-form button[type=submit]")
    row = page.locator(f"#search-results li.result[data-id='{FIGURE}']")
    expect(row.locator("a.page-link")).to_have_text("page 2")
    expect(row.locator(".region-label")).to_have_text("Figure 1")
    row.click()
    opened = row.get_attribute("data-open") or FIGURE
    own = page.locator("#page-view .box.own")
    expect(own).to_have_attribute("data-id", opened)
    expect_box_at(page, own, get_json(f"{api}/components/{opened}")["region"]["bbox"], size)
    expect(page.locator("#page-view .region-lines li")).to_have_text(
        ["Foundry output 2023", "Blue block 4200 tons"]
    )
    shot(page, "pdf-box-search")
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{server.url}/#index=boxes&component={FIGURE}")  # a shared link
        page.reload()
        check_the_figure(page, server, region, size)
        line = page.locator("#page-view .region-lines li").nth(1)
        line.hover()
        box = get_json(f"{api}/components/{line.get_attribute('data-id')}")["region"]["bbox"]
        expect_box_at(page, page.locator("#page-view .box.line"), box, size)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the page is {overflow} px wider than the screen"
        shot(page, f"pdf-box-{width}")


def test_the_answer_sources_are_drawn_apart_from_the_open_result(
    server: Server, page: Page
) -> None:
    api = server.url + "/api"
    size = get_json(f"{api}/documents/{DOC}/pages/1")
    page.goto(server.url + "/")
    page.fill("#ask-q", "How many tons is the blue block?")
    page.click("#ask-form button[type=submit]")
    expect(page.locator("#live .status")).to_contain_text("done", timeout=STEP_SECONDS * 1000)
    expect(page.locator("#live #answer")).to_contain_text("4200")
    sources = page.locator("#live #answer .cite")
    cited = [sources.nth(n).get_attribute("data-cite") or "" for n in range(sources.count())]
    assert FIGURE in cited, cited
    page.locator(f"#live li.result[data-id='{FIGURE}']").click()
    expect(page.locator("#page-view .box.own")).to_have_count(1)
    expect(page.locator("#page-view .box.cited")).to_have_count(len(cited))
    for source in cited:
        bbox = get_json(f"{api}/components/{source}")["region"]["bbox"]
        expect_box_at(page, page.locator(f"#page-view .box.cited[data-id='{source}']"), bbox, size)
    expect(page.locator("#page-view .legend.cited")).to_have_text("answer source")
    shot(page, "pdf-box-cited")
    page.reload()  # the URL names the run and the component: both come back, boxes and all
    expect(page.locator("#live #answer")).to_contain_text("4200")
    expect(page.locator("#page-view .box.own")).to_have_count(1)
    expect(page.locator("#page-view .box.cited")).to_have_count(len(cited))
