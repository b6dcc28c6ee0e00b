"""Compares the counters of a `warplens sweep --csv` with an `ncu --csv` log of the same kernel
over the same block sizes: per metric, the largest relative difference over the shapes.
Benchmarks only."""

import csv
import sys


def read_ncu(path):
    """{block_x: {metric: value}} from ncu's CSV (one row per metric per launch)."""
    values = {}
    with open(path) as f:
        lines = [line for line in f if line.startswith('"')]
    for row in csv.DictReader(lines):
        block = int(row["Block Size"].strip("()").split(",")[0])
        values.setdefault(block, {})[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    return values


def main(wl_path, ncu_path):
    ncu = read_ncu(ncu_path)
    with open(wl_path) as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ran"]
    metrics = [c for c in rows[0] if "__" in c]
    print(f"{len(rows)} shapes; WarpLens vs ncu, largest relative difference over the shapes\n")
    print("| metric | WarpLens (block 256) | ncu (block 256) | max difference | shapes compared |")
    print("|---|---|---|---|---|")
    for metric in metrics:
        worst, compared, at256 = 0.0, 0, ("", "")
        for r in rows:
            block = int(r["block_x"])
            if block not in ncu or metric not in ncu[block] or not r[metric]:
                continue
            ours, theirs = float(r[metric]), ncu[block][metric]
            scale = max(abs(theirs), 1e-12)
            worst = max(worst, abs(ours - theirs) / scale if "pct" not in metric else abs(ours - theirs))
            compared += 1
            if block == 256:
                at256 = (f"{ours:.6g}", f"{theirs:.6g}")
        unit = " points" if "pct" in metric else " %"
        shown = worst if "pct" in metric else 100 * worst
        print(f"| {metric} | {at256[0]} | {at256[1]} | {shown:.2f}{unit} | {compared} |")


if __name__ == "__main__":
    main(*sys.argv[1:3])
