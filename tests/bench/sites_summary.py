#!/usr/bin/env python3
"""Summarises tests/bench/sites_batch.sh's folder: per kernel, each site's predicted and measured
figures (requests, and sectors or wavefronts), flagged sites with their reason, the per-site run's
cost against a --metrics default run, and Nsight Compute's source page beside WarpLens's
per-instruction values."""
import csv, io, json, os, sys

folder = sys.argv[1]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception as e:  # a run that failed printed an error, not JSON
        return None


def sites_table():
    print("== per-site measured vs model (kernel default shapes)")
    print("%-26s %-26s %5s %12s %12s %7s %14s %14s %7s  %s" % (
        "kernel", "site", "line", "req pred", "req meas", "diff", "sect/wf pred", "measured",
        "diff", "reason"))
    costs = {}
    for line in open(os.path.join(folder, "costs.txt")):
        kid, plain, site, site_only = line.split()
        costs[kid] = (float(plain), float(site), float(site_only))
    totals = {"sites": 0, "within": 0, "flagged": 0, "unexplained": 0}
    for kid in costs:
        name = kid.replace("/", "_")
        r = load(os.path.join(folder, name + ".site.json"))
        if r is None:
            print("%-26s run failed: %s" % (kid, open(os.path.join(folder, name + ".site.json")).read()[-300:]))
            continue
        c = r.get("site_counts", {})
        if not c.get("available"):
            print("%-26s no per-site figures: %s" % (kid, c.get("reason")))
            continue
        for site, m in zip(r["sites"], c["sites"]):
            glob = site["space"] == "global"
            pred = site["sectors"] if glob else site["wavefronts"]
            meas = m["sectors"] if glob else m["wavefronts"]
            totals["sites"] += 1
            if abs(m["difference"]) <= 0.01 and abs(m["request_difference"]) <= 0.01:
                totals["within"] += 1
            if m["flagged"]:
                totals["flagged"] += 1
                if not m["reason"]:
                    totals["unexplained"] += 1
            print("%-26s %-26s %5d %12d %12.0f %+6.1f%% %14d %14.0f %+6.1f%%  %s" % (
                kid, site["name"][:26], m["line"], site["requests"], m["executed"],
                100 * m["request_difference"], pred, meas, 100 * m["difference"], m["reason"]))
        if c.get("unclaimed"):
            print("%-26s %d memory instructions on no site's line" % (kid, len(c["unclaimed"])))
    print("sites %(sites)d, within 1 %% on both figures %(within)d, flagged %(flagged)d, "
          "flagged without a reason %(unexplained)d" % totals)
    print("\n== cost: wall seconds of `warplens run ID` with `--metrics default` (A), "
          "`--metrics default --per-site` (B) and `--per-site` (C)")
    print("%-26s %8s %8s %8s %7s %7s %10s" % ("kernel", "A", "B", "C", "B/A", "C/A", "SASS pass"))
    worst_b = worst_c = 0
    for kid, (plain, site, site_only) in costs.items():
        r = load(os.path.join(folder, kid.replace("/", "_") + ".site.json")) or {}
        sass = r.get("site_counts", {}).get("seconds", 0)
        worst_b, worst_c = max(worst_b, site / plain), max(worst_c, site_only / plain)
        print("%-26s %7.2fs %7.2fs %7.2fs %6.2fx %6.2fx %9.2fs" % (
            kid, plain, site, site_only, site / plain, site_only / plain, sass))
    print("worst B/A %.2fx, worst C/A %.2fx" % (worst_b, worst_c))


def ncu_rows(path):
    text = open(path).read()
    start = text.find('"')  # ncu prints ==PROF== lines first
    rows = list(csv.reader(io.StringIO(text[start:])))
    return rows


NCU_COLUMNS = [  # (ncu's source-page column, WarpLens's per-instruction field)
    ("Instructions Executed", "issued"),
    ("Predicated-On Thread Instructions Executed", "lanes"),
    ("L2 Theoretical Sectors Global", "sectors"),
    ("L1 Wavefronts Shared", "wavefronts"),
]


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def ncu_table():
    print("\n== Nsight Compute source page (SASS) beside WarpLens's per-instruction values")
    print("(pc: bytes from the function's first instruction; ncu's SASS text beside each)")
    all_equal, compared = 0, 0
    for kid in ["vec_add/scalar", "transpose/smem", "matmul/tiled", "reduce_sum/sequential",
                "bank_conflicts/stride"]:
        name = kid.replace("/", "_")
        path = os.path.join(folder, name + ".ncu.csv")
        r = load(os.path.join(folder, name + ".site.json"))
        if not os.path.exists(path) or r is None or not r.get("site_counts", {}).get("available"):
            print(kid, "missing:", path)
            continue
        rows = ncu_rows(path)
        at = next((i for i, row in enumerate(rows) if row and row[0] == "Address"), None)
        if at is None:
            print(kid, "ncu gave no source page:", open(path).read()[-400:])
            continue
        header, data = rows[at], [row for row in rows[at + 1:] if len(row) == len(rows[at])]
        base = int(data[0][0], 16)
        by_pc = {int(row[0], 16) - base: row for row in data}
        print("\n%s: %d SASS instructions on ncu's page, %d memory instructions measured" % (
            kid, len(data), len(r["site_counts"]["instructions"])))
        print("%7s %-34s %5s  %s" % ("pc", "ncu SASS", "line",
                                     "  ".join("%-14s" % f for _, f in NCU_COLUMNS)))
        for i in r["site_counts"]["instructions"]:
            row = by_pc.get(i["pc"])
            if row is None:
                print("%7s no ncu row" % hex(i["pc"]))
                continue
            cells, equal = [], True
            for column, field in NCU_COLUMNS:
                # ncu leaves out a column no instruction of the kernel has (shared wavefronts of
                # a kernel without shared memory): zero, as ours must be.
                theirs = number(row[header.index(column)]) if column in header else 0.0
                ours = i[field]
                equal &= theirs == ours
                cells.append("%-14s" % ("%.0f" % ours if theirs == ours else "%.0f/%.0f" % (ours, theirs)))
            compared += 1
            all_equal += equal
            print("%7s %-34s %5d  %s %s" % (hex(i["pc"]), row[1].strip()[:34], i["line"],
                                           "  ".join(cells), "" if equal else "DIFFERS (ours/ncu)"))
    print("\n%d memory instructions compared, %d identical on all four figures" % (compared, all_equal))


sites_table()
ncu_table()
