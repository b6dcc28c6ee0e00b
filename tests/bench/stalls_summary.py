"""Compares `warplens run --stalls --json` with ncu's WarpStateStats and SourceCounters for the same
kernel, from the files stalls_batch.sh brings back: per kernel, the top three stall reasons of the
launch (WarpLens's samples beside ncu's warp-state ratios and its own samples), and per line with
at least 5 % of the samples, the top reason beside ncu's source page. ncu's CUDA page of a
bundled kernel has no metrics, so its SASS page's per-instruction stall columns are summed per
line, each instruction placed on the line WarpLens placed the instruction at the same offset
(their SASS texts compared first: a mismatch is said). Benchmarks only.

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


# ncu's source page columns (stall_long_sb) under the names WarpLens and ncu's sections use.
NCU_COLUMN = {"barrier": "barrier", "branch_resolving": "branch_resolving",
              "dispatch": "dispatch_stall", "drain": "drain", "imc": "imc_miss",
              "lg": "lg_throttle", "long_sb": "long_scoreboard", "math": "math_pipe_throttle",
              "membar": "membar", "mio": "mio_throttle", "misc": "misc",
              "no_inst": "no_instruction", "not_selected": "not_selected", "selected": "selected",
              "short_sb": "short_scoreboard", "sleep": "sleeping", "tex": "tex_throttle",
              "wait": "wait"}


def same_sass(ours, theirs):
    """The same instruction as cuobjdump and ncu write it: ncu leaves out the operand reuse flags,
    writes a branch target as an address where cuobjdump writes a label, and orders LDGSTS's
    operands otherwise, so the operands are compared as a set."""
    def plain(text):
        text = " ".join(text.replace(".reuse", "").split())
        text = re.sub(r"`\(\.L_x_\d+\)|0x[0-9a-f]{8,}", "TARGET", text)
        opcode, _, operands = text.partition(" ")
        return opcode, sorted(o.strip() for o in operands.split(","))
    return plain(ours) == plain(theirs)


def ncu_instructions(path):
    """[(offset, sass, {reason: samples})] from ncu's SASS source page, in address order."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError:
        return []
    header = next((i for i, line in enumerate(lines) if line.startswith('"Address"')), None)
    if header is None:
        return []
    rows = [r for r in csv.DictReader(lines[header:]) if str(r.get("Address", "")).startswith("0x")]
    if not rows:
        return []
    base = int(rows[0]["Address"], 16)
    out = []
    for r in rows:
        reasons = {}
        for column, reason in NCU_COLUMN.items():
            v = number(r.get("stall_" + column, ""))
            if v:
                reasons[reason] = v
        out.append((int(r["Address"], 16) - base, " ".join(r["Source"].split()), reasons))
    return out


def per_line(folder, name, stalls):
    """Rows for each line with at least 5 % of WarpLens's samples: its top reason beside ncu's."""
    ncu = ncu_instructions(os.path.join(folder, f"sass_{name}.csv"))
    if not ncu:
        return [f"| {name} | | | ncu's SASS page is missing | |"]
    ours = {i["pc"]: i for i in stalls["instructions"]}
    mismatched = sum(1 for pc, sass, _ in ncu if pc in ours and
                     not same_sass(ours[pc]["sass"], sass))
    ncu_lines = {}
    for pc, _, reasons in ncu:
        if pc in ours:
            line = ncu_lines.setdefault(ours[pc]["line"], {})
            for reason, v in reasons.items():
                line[reason] = line.get(reason, 0) + v
    whole = stalls["samples"] or 1
    rows = []
    for line in sorted(stalls["lines"], key=lambda l: -l["samples"]):
        share = line["samples"] / whole
        if share < 0.05:
            continue
        wl_top = max(line["reasons"], key=lambda r: r["samples"])["reason"]
        theirs = ncu_lines.get(line["line"], {})
        ncu_top = top(theirs, 1)
        ncu_top = ncu_top[0] if ncu_top else "none"
        ncu_share = sum(theirs.values()) / (sum(sum(r.values()) for _, _, r in ncu) or 1)
        rows.append(f"| {name} | {line['line']} | {100 * share:.1f} % / {100 * ncu_share:.1f} % | "
                    f"{wl_top} / {ncu_top} | {'yes' if wl_top == ncu_top else 'NO'} |")
    if mismatched:
        rows.append(f"| {name} | | | {mismatched} instructions' SASS differ | |")
    return rows


def main(folder):
    print("| kernel | WarpLens top 3 (share of samples) | ncu WarpStateStats top 3 | ncu samples top 3 | same top 3 |")
    print("|---|---|---|---|---|")
    lines = []
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
        lines.extend(per_line(folder, name, stalls))
    print()
    print("| kernel | line | share of samples, WarpLens / ncu | top reason, WarpLens / ncu | same |")
    print("|---|---|---|---|---|")
    for row in lines:
        print(row)


if __name__ == "__main__":
    main(sys.argv[1])
