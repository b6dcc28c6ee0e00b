"""The memory chart's links as WarpLens measured them beside ncu's MemoryWorkloadAnalysis_Chart
for the same kernel: one row per link and cache figure, both values and their difference, then
each kernel's verdict. Counts (instructions, requests, wavefronts, bytes between L1 and L2) must
be equal; the bytes L2 sends L1 depend on what L1 kept (its hit rate), DRAM bytes on what L2
held when the range began and ended (at most its size), so those are held to 5 % or a tenth of
L2's size, the hit rates to 5 % or one point; the shares of peak are CUPTI's over WarpLens's profiled range, which holds
the launch's overhead beside the kernel (ncu's is the kernel alone), so they are set over the
kernel's median time (times profiled range time / median) and held to 10 % or one point. Exits 1
when a value is missing or outside its bound, or a run failed.

usage: memory_chart_compare.py OUT_DIR
"""

import csv
import glob
import json
import os
import sys


def ncu_values(path):
    with open(path) as f:
        rows = [r for r in csv.reader(f) if r]
    header = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    names, values = rows[header], rows[header + 2]
    out = {}
    for name, value in zip(names, values):
        try:
            out[name] = float(value.replace(",", ""))
        except ValueError:
            pass
    return out


def bound(name):
    if "pct_of_peak" in name:
        return "share"
    if "hit_rate" in name:
        return "hit rate"
    if name.startswith("dram__") or name.startswith("l1tex__m_xbar2l1tex_read"):
        return "cache"
    return "count"


def within(name, ours, theirs, l2_bytes):
    kind = bound(name)
    if kind == "count":
        return ours == theirs
    if kind == "cache":
        return abs(ours - theirs) <= max(0.05 * abs(theirs), 0.1 * l2_bytes)
    if kind == "hit rate":
        return abs(ours - theirs) <= max(0.05 * abs(theirs), 1.0)
    return abs(ours - theirs) <= max(0.10 * abs(theirs), 1.0)


def main(out):
    failures = 0
    verdicts = []
    print("| kernel | metric | WarpLens (shares over the kernel) | ncu | difference | bound | ok |")
    print("|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(out, "wl_*.json"))):
        name = os.path.basename(path)[3:-5]
        try:
            result = json.load(open(path))
            chart = result["memory_chart"]["by_ncu_name"]
            ranges = [v["value"] for v in result["counters"]["values"] if v["key"] == "profiled_range_time"]
            stretch = ranges[0] / (result["timing"]["median_time"] * 1e6)
            theirs = ncu_values(os.path.join(out, f"raw_{name}.csv"))
        except (OSError, ValueError, KeyError, StopIteration, IndexError, ZeroDivisionError) as e:
            print(f"| {name} | failed: {e!r} | | | | | NO |")
            failures += 1
            verdicts.append(f"{name}: no comparison")
            continue
        bad = 0
        for metric, ours in sorted(chart.items()):
            if metric not in theirs:
                print(f"| {name} | {metric} | {ours:,.2f} | missing | | | NO |")
                bad += 1
                continue
            value = theirs[metric]
            if bound(metric) == "share":
                ours = ours * stretch
            diff = (ours - value) / value * 100 if value else (0.0 if ours == 0 else float("inf"))
            ok = within(metric, ours, value, theirs.get("device__attribute_l2_cache_size", 0))
            bad += not ok
            print(f"| {name} | {metric} | {ours:,.2f} | {value:,.2f} | {diff:+.2f} % | {bound(metric)} | "
                  f"{'yes' if ok else 'NO'} |")
        failures += bad
        verdicts.append(f"{name}: {len(chart) - bad} of {len(chart)} within their bounds (range / "
                        f"median {stretch:.2f})")
    print("\n" + "\n".join(verdicts))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
