"""Compares `warplens run --stalls --json` with ncu's WarpStateStats and SourceCounters for the same
kernel, from the files stalls_batch.sh brings back: per kernel, the top three stall reasons of the
launch (WarpLens's samples beside ncu's warp-state ratios and its own samples), and per line with
at least 5 % of the samples, the top reason beside ncu's source page. Benchmarks only.

Usage: stalls_summary.py FOLDER   (the unpacked stalls.tgz)"""

import csv
import glob
import json
import os
import re
import sys

RATIO = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
SAMPLED = re.compile(r"^smsp__pcsamp_warps_issue_stalled_(\w+?)(\.sum)?$")


def rows_of(path):
    """The data rows of an ncu CSV export, each a dict; [] when the export failed."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [line for line in f if line.startswith('"')]
    return list(csv.DictReader(lines)) if lines else []


def number(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def ncu_launch(path):
    """{reason: value} from the raw page: WarpStateStats' ratios and the sampled counts."""
    rows = [r for r in rows_of(path) if number(r.get("ID", "")) is not None]
    if not rows:
        return {}, {}
    row = rows[0]
    ratios, sampled = {}, {}
    for key, value in row.items():
        v = number(value)
        if v is None or key is None:
            continue
        if m := RATIO.match(key):
            if not m.group(1).endswith("not_issued"):
                ratios[m.group(1)] = v
        elif m := SAMPLED.match(key):
            reason = "no_instruction" if m.group(1) == "no_instructions" else m.group(1)
            if not reason.endswith("not_issued"):
                sampled[reason] = sampled.get(reason, 0) + v
    return ratios, sampled


def top(values, n=3):
    return [k for k, v in sorted(values.items(), key=lambda kv: -kv[1]) if v > 0][:n]


def warplens_launch(path):
    stalls = json.load(open(path))["stalls"]
    return {c["reason"]: c["samples"] for c in stalls["launch"]}, stalls


def main(folder):
    print("| kernel | WarpLens top 3 (share of samples) | ncu WarpStateStats top 3 | ncu samples top 3 | same top 3 |")
    print("|---|---|---|---|---|")
    for wl_path in sorted(glob.glob(os.path.join(folder, "wl_*.json"))):
        name = os.path.basename(wl_path)[3:-5]
        try:
            wl, stalls = warplens_launch(wl_path)
        except (ValueError, KeyError) as e:
            print(f"| {name} | no samples ({e}) | | | |")
            continue
        whole = sum(wl.values()) or 1
        ratios, sampled = ncu_launch(os.path.join(folder, f"raw_{name}.csv"))
        wl_top = top(wl)
        shares = ", ".join(f"{r} {100 * wl[r] / whole:.1f} %" for r in wl_top)
        same = "yes" if wl_top == top(ratios) else ("as a set" if set(wl_top) == set(top(ratios)) else "no")
        print(f"| {name} | {shares} | {', '.join(top(ratios))} | {', '.join(top(sampled))} | {same} |")


if __name__ == "__main__":
    main(sys.argv[1])
