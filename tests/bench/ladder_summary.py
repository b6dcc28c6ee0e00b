#!/usr/bin/env python3
"""Summarises tests/bench/ladder_batch.sh's folder: each matmul rung's median time at its default
launch against cuBLAS and torch timed in the same call, every blocking of the tunable rungs, and
the per-site pass of the register-blocked rungs (predicted beside measured)."""
import json, os, sys

from site_rows import print_site_rows

folder = sys.argv[1]
# The rungs with blockings as parameters, in the ladder's order.
TUNABLE = ["blocktile_1d", "blocktile_2d", "vectorized", "warptile", "double_buffered",
           "async_copy"]


def load(name):
    try:
        with open(os.path.join(folder, name)) as f:
            return json.load(f)
    except Exception:
        return None


def error_of(name):
    try:
        return open(os.path.join(folder, name.replace(".json", ".err"))).read().strip()[-200:]
    except Exception:
        return "no output"


def rungs():
    torch = load("torch.json") or {}
    cublas = (load("time.cublas.json") or {}).get("timing", {}).get("median_ms")
    print("== matmul 4096^3 fp32, median ms (torch fp32 matmul, TF32 off: %s ms)"
          % torch.get("matmul_fp32_4096_ms", "?"))
    print("%-18s %10s %10s %10s %9s" % ("rung", "median ms", "GFLOP/s", "of cuBLAS", "verified"))
    for rung in ["naive", "tiled"] + TUNABLE + ["cublas"]:
        r = load("time.%s.json" % rung)
        if not r or "timing" not in r:
            print("%-18s failed: %s" % (rung, error_of("time.%s.json" % rung)))
            continue
        ms = r["timing"]["median_ms"]
        share = "%.1f %%" % (100 * cublas / ms) if cublas else "?"
        verified = r.get("verification", {}).get("passed")
        print("%-18s %10.3f %10.0f %10s %9s" % (rung, ms, r["timing"]["gflops"], share, verified))
    return cublas


def blockings(cublas):
    keys = ["bm", "bn", "bk", "tm", "tn", "wm", "wn", "wn_iter", "stages", "group"]
    for rung in TUNABLE:
        j = load("sweep.%s.json" % rung)
        if not j:
            print("== %s blockings: no sweep (%s)" % (rung, error_of("sweep.%s.json" % rung)))
            continue
        print("== %s, each blocking at 4096^3" % rung)
        refused = 0
        for p in j["points"]:
            if p.get("refused"):
                refused += 1
                continue
            r = p.get("result", p)
            t = r.get("timing", {})
            ms = t.get("median_ms")
            blocking = " ".join("%s=%s" % (k, p["params"][k]) for k in keys if k in p["params"])
            regs = r.get("attributes", {}).get("registers_per_thread", "?")
            verified = r.get("verification", {}).get("passed")
            print("  %-52s block %4d %9s ms %7s of cuBLAS  regs %s verified %s" % (
                blocking, p["block"][0], "%.3f" % ms if ms else "?",
                "%.1f%%" % (100 * cublas / ms) if ms and cublas else "?", regs, verified))
        print("  (%d combinations not built, refused)" % refused)


def sites():
    print("== per-site, 1024^3: predicted beside measured")
    for rung in TUNABLE:
        print_site_rows(rung, load("site.%s.json" % rung), error_of("site.%s.json" % rung))


def dram():
    print("== double_buffered at 4096^3: DRAM bytes by launch order")
    for group in (1, 8):
        r = load("dram.group%d.json" % group)
        if not r:
            print("  group %d: run failed: %s" % (group, error_of("dram.group%d.json" % group)))
            continue
        values = {v["key"]: v["value"] for v in r.get("counters", {}).get("values", [])}
        dram = sum(values.get(key) or 0 for key in ("dram_read_bytes", "dram_write_bytes"))
        print("  group %d: %.3f ms, DRAM %.2f GB" % (
            group, r.get("timing", {}).get("median_ms", 0), dram / 1e9))


def all_sites():
    names = sorted(n for n in os.listdir(folder) if n.startswith("all_sites."))
    if not names:
        return
    print("== every bundled kernel's per-site pass at its default launch")
    totals = {"kernels": 0, "sites": 0, "within": 0, "flagged": 0, "unexplained": 0}
    for name in names:
        r = load(name)
        kid = name[len("all_sites."):-len(".json")]
        c = (r or {}).get("site_counts", {})
        if not c.get("available"):
            print("  %-28s no per-site figures: %s" % (kid, c.get("reason") if r else "run failed"))
            continue
        totals["kernels"] += 1
        for site, m in zip(r["sites"], c["sites"]):
            totals["sites"] += 1
            if abs(m["difference"]) <= 0.02 and abs(m["request_difference"]) <= 0.02:
                totals["within"] += 1
            if m["flagged"]:
                totals["flagged"] += 1
                totals["unexplained"] += 0 if m["reason"] else 1
                print("  %-28s %-22s requests %+6.1f%%, sectors/wavefronts %+6.1f%%: %s" % (
                    kid, site["name"], 100 * m["request_difference"], 100 * m["difference"],
                    m["reason"] or "NO REASON"))
    print("  %(kernels)d kernels, %(sites)d sites: %(within)d within 2 %%, %(flagged)d flagged, "
          "%(unexplained)d flagged without a reason" % totals)


cublas = rungs()
dram()
blockings(cublas)
sites()
all_sites()
