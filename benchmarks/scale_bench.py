"""FiF as distractors grow: build cost, query latency and recall at 10k / 100k / 1M subcomponents.

Usage: python benchmarks/scale_bench.py DATA/hotpotqa-train100 --sources DATA/ottqa-dev200
       [--sizes 10000 100000] [--work .fif/scale] [--out runs/scale] [--seed 7]
       [--limit N] [--rounds 2] [--no-server] [--queries-only] [--link-mentions on]

For each size (counted in subcomponents: sentences and table rows; 0: the planted bundle
alone) it writes a bundle of
the planted bundle's pages and questions plus distractor pages made from the sources' real
text (evals.datasets.scale_corpus: fresh ids, renamed title words, links among
themselves), builds it cold with `fif build` in a fresh process, and measures:
- build wall time, its stage split (the manifest's timings), peak RSS, index size on disk;
- `fif eval --compare dense,fif` (offline): p50 / p95 latency, R@10 and all-gold@10, once
  against the embedded Chroma and once against `chroma run` on loopback serving a copy of
  the same collections (`--chroma-url`), alternating for `--rounds` rounds; each mode keeps
  its lower p50 and p95 (a burst of load on the shared machine hits one round alone).
Figures are merged by size into OUT/scale_bench.json (a later run adds sizes), printed as a
table and drawn in OUT/scale_bench.png.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from evals.datasets.scale_corpus import write_scaled_bundle
from evals.report import write_report
from tools.index_versions import live_dir
from tools.manifest import Manifest

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = ("dense", "fif")
MODES = ("embedded", "server")


def main() -> None:
    """Measure every size, merge into the JSON, print the table, draw the figure."""
    args = _arguments()
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "scale_bench.json"
    results = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    for size in args.sizes:
        if args.queries_only:
            results[str(size)]["queries"] = queries(size, args)
        else:
            results[str(size)] = measure(size, args)
        path.write_text(json.dumps(results, indent=1), encoding="utf-8")
        print(table(results), flush=True)
    draw(results, args.out / "scale_bench.png")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--sources", type=Path, nargs="+", required=True)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--work", type=Path, default=Path(".fif/scale"))
    parser.add_argument("--out", type=Path, default=Path("runs/scale"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--limit", type=int, help="evaluate only the first N questions")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-server", action="store_true", help="skip the Chroma server")
    parser.add_argument(
        "--link-mentions",
        choices=("auto", "on", "off"),
        default="on",
        help="fif build's title-mention links; `auto` would turn them off for a planted "
        "bundle without hyperlinks as soon as distractors bring some",
    )
    parser.add_argument(
        "--queries-only",
        action="store_true",
        help="keep each size's corpus, index and build figures; measure the queries again",
    )
    return parser.parse_args()


def measure(size: int, args: argparse.Namespace) -> dict[str, Any]:
    """Grow, build and query one size."""
    corpus, index = args.work / f"corpus-{size}", args.work / f"index-{size}"
    started = time.perf_counter()
    grown = write_scaled_bundle(args.bundle, args.sources, size, corpus, args.seed)
    figures: dict[str, Any] = {"corpus": asdict(grown)}
    figures["corpus"]["generate_s"] = round(time.perf_counter() - started, 1)
    shutil.rmtree(index, ignore_errors=True)  # a cold build
    log = args.work / f"build-{size}.log"
    figures["build"] = build_figures(corpus, index, log, args.link_mentions)
    figures["queries"] = queries(size, args)
    return figures


def queries(size: int, args: argparse.Namespace) -> dict[str, dict[str, dict[str, float]]]:
    """Query one size's index embedded and through a Chroma server, alternating by round."""
    corpus, index = args.work / f"corpus-{size}", args.work / f"index-{size}"
    modes = MODES[:1] if args.no_server else MODES
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
    with chroma_server(live_dir(index) / "chroma", args.work / f"server-{size}") as url:
        for n in range(args.rounds):
            for mode in modes:
                out = args.work / f"eval-{size}-{mode}-{n}"
                runs[mode].append(query_figures(corpus, index, out, args.limit, mode, url))
    return {mode: best_of(found) for mode, found in runs.items()}


def build_figures(corpus: Path, index: Path, log: Path, mentions: str) -> dict[str, Any]:
    """Run `fif build` in a fresh process: wall time, stage split, peak RSS, size on disk."""
    command = [sys.executable, "-m", "fif", "build", str(corpus), "--index", str(index)]
    command += ["--link-mentions", mentions]
    started = time.perf_counter()
    with log.open("w", encoding="utf-8") as output:
        process = subprocess.Popen(command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"fif build failed; see {log}")
    manifest = Manifest.load(live_dir(index))
    size = subprocess.run(["du", "-sb", str(index)], capture_output=True, text=True, check=True)
    counts = dict(manifest.counts)
    return {
        "wall_s": round(wall, 1),
        "timings_s": {k: round(v, 1) for k, v in manifest.timings.items()},
        "texts_embedded": manifest.embedding.get("texts_embedded", 0),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "index_mb": round(int(size.stdout.split()[0]) / 1e6, 1),
        "counts": counts,
    }


@contextmanager
def chroma_server(collections: Path, copy: Path) -> Iterator[str]:
    """Serve a copy of an index's Chroma folder with `chroma run` on loopback; yield its URL."""
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(collections, copy)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    chroma = Path(sys.executable).with_name("chroma")
    command = [str(chroma), "run", "--path", str(copy), "--host", "127.0.0.1"]
    log = copy.with_suffix(".log").open("w", encoding="utf-8")
    server = subprocess.Popen([*command, "--port", str(port)], stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(url, server)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
        shutil.rmtree(copy, ignore_errors=True)


def _wait_for(url: str, server: subprocess.Popen[bytes], timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"chroma run did not answer on {url}")


def query_figures(
    corpus: Path, index: Path, out: Path, limit: int | None, mode: str, url: str
) -> dict[str, dict[str, float]]:
    """Run `fif eval --compare dense,fif` in a fresh process; return latency and recall."""
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "fif", "eval", "--dataset", str(corpus), "--index"]
    command += [str(index), "--out", str(out), "--compare", ",".join(SYSTEMS), "--no-progress"]
    command += ["--limit", str(limit)] if limit else []
    command += ["--chroma-url", url] if mode == "server" else []
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    report = write_report(out, plots=False).report
    return {
        system.system: {
            "p50_ms": round(system.efficiency["latency_p50_ms"], 1),
            "p95_ms": round(system.efficiency["latency_p95_ms"], 1),
            "R@10": round(system.quality["R@10"], 3),
            "AllGold@10": round(system.quality["AllGold@10"], 3),
        }
        for system in report.systems
    }


def best_of(runs: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Keep each system's lower p50 and p95 over the rounds (quality is the same in each)."""
    best = {system: dict(figures) for system, figures in runs[0].items()}
    for run in runs[1:]:
        for system, figures in run.items():
            for key in ("p50_ms", "p95_ms"):
                best[system][key] = min(best[system][key], figures[key])
    return best


def table(results: dict[str, Any]) -> str:
    """Return the figures as a markdown table, one row per size."""
    lines = [
        "| subcomponents | pages | build s | s/100k | peak RSS MB | index MB | "
        "dense p50/p95 ms | FiF p50/p95 ms | server dense p50 | server FiF p50 | "
        "dense R@10 / all-gold | FiF R@10 / all-gold |",
        "|" + "---|" * 12,
    ]
    for _, found in sorted(results.items(), key=lambda item: int(item[0])):
        build, queries = found["build"], found["queries"]
        units, grown = _units(found["corpus"]), found["corpus"]
        pages = grown["planted_documents"] + grown["distractor_documents"]
        local, remote = queries["embedded"], queries.get("server", {})
        lines.append(
            f"| {units:,} | {pages:,} | {build['wall_s']:.0f} | "
            f"{build['wall_s'] / units * 1e5:.0f} | {build['peak_rss_mb']:.0f} | "
            f"{build['index_mb']:.0f} | {_latency(local['dense'])} | {_latency(local['fif'])} | "
            f"{_p50(remote, 'dense')} | {_p50(remote, 'fif')} | {_quality(local['dense'])} | "
            f"{_quality(local['fif'])} |"
        )
    return "\n".join(lines)


def _units(grown: dict[str, int]) -> int:
    return grown["planted_subcomponents"] + grown["distractor_subcomponents"]


def _latency(figures: dict[str, float]) -> str:
    return f"{figures['p50_ms']:.1f} / {figures['p95_ms']:.1f}"


def _p50(mode: dict[str, dict[str, float]], system: str) -> str:
    return f"{mode[system]['p50_ms']:.1f}" if system in mode else "-"


def _quality(figures: dict[str, float]) -> str:
    return f"{figures['R@10']:.3f} / {figures['AllGold@10']:.3f}"


def draw(results: dict[str, Any], path: Path) -> None:
    """Draw p50 latency and R@10 / all-gold@10 against corpus size (log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(results, key=int)
    x = [_units(results[s]["corpus"]) for s in sizes]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for mode in MODES:
        for system in SYSTEMS:
            y = [results[s]["queries"].get(mode, {}).get(system, {}).get("p50_ms") for s in sizes]
            if all(v is not None for v in y):
                left.plot(x, y, marker="o", label=f"{system}, {mode}")
    for system in SYSTEMS:
        for key in ("R@10", "AllGold@10"):
            y = [results[s]["queries"]["embedded"][system][key] for s in sizes]
            right.plot(x, y, marker="o", label=f"{system} {key}")
    left.set(xscale="log", xlabel="subcomponents", ylabel="p50 latency (ms)")
    right.set(xscale="log", xlabel="subcomponents", ylabel="recall", ylim=(0, 1.02))
    left.legend(fontsize=8)
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
