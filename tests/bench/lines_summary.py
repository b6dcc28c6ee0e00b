#!/usr/bin/env python3
"""Summarises tests/bench/lines_batch.sh's folder: for each example kernel file, every line WarpLens
measured beside the same line of Nsight Compute's source page (CUDA view): the instructions
issued, the global sectors and the shared wavefronts, and whether all three are equal."""
import csv, io, json, os, sys

folder = sys.argv[1]
COLUMNS = [  # (ncu's source-page column, WarpLens's per-line figure)
    ("Instructions Executed", "issued"),
    ("L2 Theoretical Sectors Global", "sectors"),
    ("L1 Wavefronts Shared", "wavefronts"),
]


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def ours(path):
    """WarpLens's lines: each line's sums over every instruction on it."""
    with open(path) as f:
        counts = json.load(f)["site_counts"]
    if not counts.get("available"):
        raise RuntimeError("no per-line figures: " + counts.get("reason", ""))
    return {l["line"]: {field: l[field] for _, field in COLUMNS} for l in counts["line_issues"]}


def theirs(path):
    """ncu's source page, CUDA lines with their SASS under them: a row per line of the file (its
    number first) holds the sums over the instructions listed under it (whose rows start empty).
    Also returns the instructions ncu lists under more than one line, by address: their lines and
    text, and how often they ran."""
    text = open(path).read()
    rows = list(csv.reader(io.StringIO(text[text.find('"'):])))
    at = next((k for k, row in enumerate(rows) if row[:1] == ["Line No"]), None)
    if at is None or "Instructions Executed" not in rows[at]:
        raise RuntimeError("ncu gave no source page with counters: " + text[-400:])
    header = rows[at]
    executed = header.index("Instructions Executed")
    lines, listed, line = {}, {}, None
    for row in rows[at + 1:]:
        if row[:1] == ["File Name"]:
            break  # another file (a header the kernel includes)
        if len(row) < len(header):
            continue
        if row[0].strip().isdigit():
            line = int(row[0])
            lines[line] = {field: number(row[header.index(col)]) if col in header else 0.0
                           for col, field in COLUMNS}
        elif row[2].startswith("0x"):
            listed.setdefault(row[2], []).append((line, row[3].strip(), number(row[executed])))
    twice = {address: places for address, places in listed.items() if len(places) > 1}
    return lines, twice


compared = equal = 0
for kernel in ["saxpy", "transpose", "stencil_2d", "histogram"]:
    print("\n== %s.cu: per line, WarpLens / ncu source page (CUDA view)" % kernel)
    try:
        mine = ours(os.path.join(folder, kernel + ".lines.json"))
        ncu, twice = theirs(os.path.join(folder, kernel + ".ncu.csv"))
    except Exception as e:
        print("  missing:", e)
        continue
    print("%5s  %-24s %-24s %-24s" % ("line", "instructions", "global sectors", "shared wavefronts"))
    for line in sorted(mine):
        row = ncu.get(line)
        if row is None:
            print("%5d  no ncu row" % line)
            compared += 1
            continue
        cells, same = [], True
        for _, field in COLUMNS:
            a, b = mine[line][field], row[field]
            same &= a == b
            cells.append("%-24s" % ("%.0f" % a if a == b else "%.0f / %.0f" % (a, b)))
        compared += 1
        equal += same
        print("%5d  %s %s" % (line, " ".join(cells), "" if same else "DIFFERS"))
    for address, places in twice.items():
        print("  ncu lists the instruction at %s (%s, run %.0f times) under lines %s and counts it "
              "in each; WarpLens counts it once, on the line CUPTI's SASS-to-source correlation "
              "gives" % (address, places[0][1], places[0][2],
                         " and ".join(str(p[0]) for p in places)))
    extra = [l for l, row in ncu.items() if l not in mine and any(row.values())]
    if extra:
        print("  lines ncu counts that WarpLens has none for:", extra)
print("\n%d lines compared, %d equal on all three figures" % (compared, equal))
