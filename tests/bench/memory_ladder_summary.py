#!/usr/bin/env python3
"""Summarises tests/bench/memory_ladder_batch.sh's folder: each softmax variant at each shape
against torch.softmax, and reduce_sum and transpose against the copy bandwidth, all measured in
the same call."""
import glob, json, os, re, sys

from site_rows import print_site_rows

folder = sys.argv[1]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception:
        return None


def reason(path):
    try:
        return open(path.replace(".json", ".err")).read().strip().splitlines()[-1][:160]
    except Exception:
        return "no output"


def copy_gbps(name="copy.txt"):
    try:
        text = open(os.path.join(folder, name)).read()
        return float(re.search(r"copy of \d+ floats: ([0-9.]+) GB/s", text).group(1))
    except Exception:
        return None


def softmax(torch):
    print("== softmax, median ms (WarpLens L2 flushed before each sample; torch warm)")
    print("%-16s %-11s %6s %10s %9s %9s %8s %s" % (
        "variant", "shape", "block", "median ms", "GB/s", "torch ms", "x torch", "verified"))
    for path in sorted(glob.glob(os.path.join(folder, "softmax.*.json"))):
        _, variant, shape, block, _ = os.path.basename(path).split(".")
        peer = torch.get("softmax_%s_ms" % shape)
        r = load(path)
        if not r or "timing" not in r:
            print("%-16s %-11s %6s failed: %s" % (variant, shape, block, reason(path)))
            continue
        ms = r["timing"]["median_ms"]
        print("%-16s %-11s %6s %10.4f %9.0f %9s %8s %s" % (
            variant, shape, r["block"][0], ms, r["timing"]["gbps"],
            "%.4f" % peer if peer else "?", "%.2fx" % (peer / ms) if peer else "?",
            r.get("verification", {}).get("passed")))


def against_copy(family, copy, peer_ms):
    print("== %s, against the copy bandwidth (%s GB/s) and torch (%s ms)" % (
        family, copy, "%.4f" % peer_ms if peer_ms else "?"))
    for path in sorted(glob.glob(os.path.join(folder, family + ".*.json"))):
        variant = os.path.basename(path).split(".")[1]
        r = load(path)
        if not r or "timing" not in r:
            print("  %-16s failed: %s" % (variant, reason(path)))
            continue
        t = r["timing"]
        print("  %-16s %9.4f ms %8.0f GB/s %7s of copy %8s x torch  verified %s" % (
            variant, t["median_ms"], t["gbps"],
            "%.1f%%" % (100 * t["gbps"] / copy) if copy else "?",
            "%.2f" % (peer_ms / t["median_ms"]) if peer_ms else "?",
            r.get("verification", {}).get("passed")))


def sites():
    paths = sorted(glob.glob(os.path.join(folder, "site.*.json")))
    if paths:
        print("== per-site at 1024 x 1024: predicted beside measured")
    for path in paths:
        print_site_rows(os.path.basename(path)[len("site."):-len(".json")], load(path),
                        reason(path))


torch = load(os.path.join(folder, "torch.json")) or {}
print("torch:", json.dumps(torch))
softmax(torch)
copy = copy_gbps()
against_copy("reduce_sum", copy, torch.get("sum_16M_ms"))
copy16 = copy_gbps("copy16M.txt")
if copy16:
    print("  (a copy of the same 16M floats: %.1f GB/s)" % copy16)
    against_copy("reduce_sum", copy16, torch.get("sum_16M_ms"))
against_copy("transpose", copy, torch.get("transpose_8192x8192_ms"))
sites()
