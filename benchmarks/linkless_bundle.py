"""Write a link-less copy of a bundle: every hyperlink, cell link and anchor removed.

    python benchmarks/linkless_bundle.py BUNDLE OUT

Hops then have to go through entities named in the text (title mentions, which `fif build`
adds by itself to a corpus without hyperlinks) rather than through links, as on MuSiQue.
Questions and gold ids are copied unchanged; component texts are untouched, so an index of
OUT built into a copy of BUNDLE's index re-embeds nothing.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

LINK_FIELDS = ("links", "cell_links", "anchors", "sentence_links")


def strip_links(document: dict) -> dict:
    """Return the document with no link field on any component."""
    components = [
        {key: value for key, value in component.items() if key not in LINK_FIELDS}
        for component in document.get("components", [])
    ]
    return {**document, "components": components}


def main() -> None:
    """Copy BUNDLE to OUT without links."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with (
        (args.bundle / "corpus.jsonl").open(encoding="utf-8") as source,
        (args.out / "corpus.jsonl").open("w", encoding="utf-8") as target,
    ):
        for line in source:
            if line.strip():
                target.write(json.dumps(strip_links(json.loads(line)), ensure_ascii=False) + "\n")
    shutil.copy(args.bundle / "questions.jsonl", args.out / "questions.jsonl")
    print(f"wrote {args.out} (links removed from every component)")


if __name__ == "__main__":
    main()
