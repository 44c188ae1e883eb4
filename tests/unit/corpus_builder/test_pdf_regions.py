from corpus_builder.pdf_figures import label_key, region_block, with_regions
from corpus_builder.pdf_layout import Block
from corpus_builder.pdf_pages import PdfLine, PdfRegion
from corpus_builder.pdf_regions import GraphicObject, find_regions

W, H = 612.0, 792.0


def path(left: float, bottom: float, right: float, top: float) -> GraphicObject:
    return GraphicObject("path", left, bottom, right, top)


def bars(x: float, y: float, n: int = 8) -> list[GraphicObject]:
    """n touching bars, 20 pt wide, standing on y (bottom-left coordinates)."""
    return [path(x + 22 * i, y, x + 22 * i + 20, y + 40 + 10 * i) for i in range(n)]


def test_touching_paths_cluster_into_one_chart_region_with_a_top_left_box() -> None:
    regions, problems = find_regions(0, W, H, bars(100, 300))
    assert problems == []
    [region] = regions
    assert not region.raster
    x1, y1, x2, y2 = region.box
    assert (x1, x2) == (100, 100 + 22 * 7 + 20)
    assert (y1, y2) == (H - (300 + 40 + 70), H - 300)


def test_few_paths_rules_and_page_backgrounds_make_no_region() -> None:
    rules = [path(50, 100 + 30 * i, 550, 100.5 + 30 * i) for i in range(10)]  # thin, far apart
    background = path(0, 0, W, H)
    regions, _ = find_regions(0, W, H, [*bars(100, 300, n=3), *rules, background])
    assert regions == []


def test_two_far_apart_charts_stay_two_regions() -> None:
    regions, _ = find_regions(0, W, H, [*bars(60, 100), *bars(60, 500)])
    assert len(regions) == 2
    assert regions[0].box[1] < regions[1].box[1]  # top one first


def test_images_small_ones_off_page_ones_and_full_page_scans() -> None:
    photo = GraphicObject("image", 100, 100, 400, 300, raster=True)
    logo = GraphicObject("image", 10, 10, 30, 30, raster=True)
    off = GraphicObject("image", 700, 900, 900, 1000, raster=True)
    scan = GraphicObject("image", 0, 0, W, H, raster=True)
    regions, problems = find_regions(3, W, H, [photo, logo, off, scan])
    assert [r.box for r in regions] == [(100, H - 300, 400, H - 100)]
    assert regions[0].raster and regions[0].page == 3
    assert problems == ["page 3: an image lies outside the page; ignored"]


def test_a_chart_over_its_image_background_merges_into_one_raster_region() -> None:
    image = GraphicObject("image", 100, 300, 300, 450, raster=True)
    regions, _ = find_regions(0, W, H, [image, *bars(110, 310, n=6)])
    assert len(regions) == 1 and regions[0].raster


def test_caption_labels() -> None:
    assert label_key("Figure 3: Sales") == ("figure", "3")
    assert label_key("Fig. 12b shows") == ("figure", "12b")
    assert label_key("EXHIBIT 4") == ("exhibit", "4")
    assert label_key("Table 2") == ("table", "2")
    assert label_key("The Figure 3") is None


def line(text: str, top: float, left: float = 100.0, right: float = 200.0) -> PdfLine:
    """A line on page 0 whose top is `top` points below the page top."""
    return PdfLine(text, 0, H - top, H - top - 10, left, 10.0, False, right=right)


def test_region_block_takes_the_nearest_caption_and_the_lines_inside() -> None:
    region = PdfRegion(0, (90.0, 100.0, 300.0, 300.0), False)
    lines = [
        line("Figure 9: far below", 400),
        line("2021", 150),
        line("Figure 3: Sales by year", 310),
        line("Body text beside", 150, left=400, right=500),
    ]
    block = region_block(region, lines, H)
    assert block.kind == "image" and block.label == ("figure", "3")
    assert block.text == "Figure 3: Sales by year 2021"
    assert [b.text for b in block.inside] == ["2021"]
    assert block.inside[0].box == (100.0, 150.0, 200.0, 160.0)


def test_region_blocks_go_in_reading_order_under_the_section_before_them() -> None:
    above, below = line("Intro text above.", 50), line("Text below.", 500)
    blocks = [Block("paragraph", ("Intro",), [above]), Block("paragraph", ("Next",), [below])]
    region = PdfRegion(0, (90.0, 100.0, 300.0, 300.0), True)
    merged = with_regions(blocks, [region], [above, below], {0: H})
    assert [b.kind for b in merged] == ["paragraph", "image", "paragraph"]
    assert merged[1].section == ("Intro",)
    assert merged[1].text == "Picture on page 1"


def test_pages_no_block_covers_and_without_regions_become_page_sized_regions() -> None:
    from pathlib import Path

    from corpus_builder.pdf_ocr_pages import page_regions
    from corpus_builder.pdf_pages import PdfFile, PdfPage

    chart = PdfRegion(2, (10.0, 10.0, 100.0, 100.0), False)
    pages = [PdfPage(n, H, [line("Title only", 50)], width=W) for n in range(4)]
    pages[2].regions = [chart]
    pdf = PdfFile(Path("x.pdf"), "", [], pages, unreadable_pages=[3])
    assert page_regions(pdf, covered={0}) == [chart, PdfRegion(1, (0.0, 0.0, W, H), True)]
