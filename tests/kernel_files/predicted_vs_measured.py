#!/usr/bin/env python3
"""Each line of kernel files: what the PTX model predicts beside what the GPU measured.

For each kernel file given, `warplens run FILE --per-site --json ARGS` runs it once on the GPU with
its SASS instructions measured (sectors, wavefronts, executions per instruction) and the model's
prediction beside them. The measured instructions and the predicted sites are summed per
(line, space, op) and compared on requests, sectors (global) and wavefronts (shared):

    EQUAL      every figure the same
    NAMED      WarpLens flags the line as differing and names why (printed under it)
    DIFFERS    a figure differs beyond the tolerance with no reason named
    PREDICTED  only the model has the line (the compiler removed or merged its access)
    MEASURED   only the GPU has it (an access the model did not run: its notes say why)

ARGS are the file's first `// compare at:` line where it has one (tests/kernel_files/bundled),
else none (the file's defaults). A line whose prediction is not exact (a sampled launch) is
compared per request instead, within --tolerance. Prints one table per file and a summary; exits
1 if a file fails to run, 0 otherwise (the table is the evidence, the differences its reading).

    WARPLENS=build/ci/app/warplens tests/kernel_files/predicted_vs_measured.py FILE.cu ...

Standard library only.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
from collections import defaultdict


def file_args(path):
    """The file's first `// compare at:` arguments, its renames applied, else none."""
    compare, renames = None, {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("//"):
                break
            text = line[2:].strip()
            if text.startswith("compare at:") and compare is None:
                compare = text[len("compare at:"):].split("(")[0].strip()
            elif text.startswith("rename:"):
                for pair in text[len("rename:"):].split(","):
                    if "=" in pair:
                        old, new = pair.strip().split("=", 1)
                        renames[old.strip()] = new.strip()
    args = shlex.split(compare or "")
    for i, a in enumerate(args):
        if i > 0 and args[i - 1] == "--param" and "=" in a:
            name, value = a.split("=", 1)
            args[i] = f"{renames.get(name, name)}={value}"
    return args


def measured_lines(result):
    """(line, space, op) -> [requests, sectors, wavefronts] from the measured SASS instructions."""
    out = defaultdict(lambda: [0.0, 0.0, 0.0])
    counts = result.get("site_counts") or {}
    for i in counts.get("instructions", []):
        if i["file"] != counts.get("file"):
            continue  # a header's line (a library's code), which has no prediction of the file's
        key = (i["line"], i["space"], i["op"])
        out[key][0] += i["executed"]
        out[key][1] += i["sectors"]
        out[key][2] += i["wavefronts"]
    return out


def predicted_lines(result):
    """(line, space, op) -> [requests, sectors, wavefronts, exact] from the model's sites, and
    (line, space, op) -> the reason WarpLens gives where its measurement differs."""
    out = defaultdict(lambda: [0.0, 0.0, 0.0, True])
    reasons = {}
    for s in result.get("sites", []):
        key = (s["line"], s["space"], s["op"])
        out[key][0] += s["requests"]
        out[key][1] += s["sectors"]
        out[key][2] += s["wavefronts"]
        out[key][3] = out[key][3] and s["exact"]
        measured = s.get("measured") or {}
        if measured.get("flagged"):
            reasons[key] = measured.get("reason", "")
    return out, reasons


def verdict(p, m, tolerance):
    if p is None:
        return "MEASURED"
    if m is None:
        return "PREDICTED"
    if p[3]:
        return "EQUAL" if [round(x) for x in p[:3]] == [round(x) for x in m] else "DIFFERS"
    # Sampled: per request, within the tolerance.
    if m[0] == 0 or p[0] == 0:
        return "DIFFERS"
    for k in (1, 2):
        a, b = p[k] / p[0], m[k] / m[0]
        if abs(a - b) > tolerance * max(a, b, 1e-9):
            return "DIFFERS"
    return "CLOSE"


def compare(warplens, path, tolerance, extra):
    args = file_args(path) + extra
    command = [warplens, "run", path, "--per-site", "--json"] + args
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    name = os.path.basename(path)
    if done.returncode != 0:
        print(f"{name}: exit {done.returncode}: {(done.stderr or done.stdout).strip()[:300]}")
        return None
    result = json.loads(done.stdout)
    counts = result.get("site_counts") or {}
    if not counts.get("available"):
        print(f"{name}: no per-line measurement: {counts.get('reason', '?')}")
        return None
    (predicted, reasons), measured = predicted_lines(result), measured_lines(result)
    print(f"{name}  {' '.join(args)}  (model: {result.get('model_warp_iterations_evaluated')} of "
          f"{result.get('model_warp_iterations')} warps)")
    print(f"  {'line':>5} {'space/op':<14} {'requests p/m':>22} {'sectors p/m':>24} "
          f"{'wavefronts p/m':>24}  verdict")
    tally = defaultdict(int)
    for key in sorted(set(predicted) | set(measured)):
        p, m = predicted.get(key), measured.get(key)
        v = verdict(p, m, tolerance)
        if key in reasons and v != "EQUAL":
            v = "NAMED"  # WarpLens flags the line and says why (printed under it)
        tally[v] += 1
        pf = ["-"] * 3 if p is None else [f"{x:.0f}" for x in p[:3]]
        mf = ["-"] * 3 if m is None else [f"{x:.0f}" for x in m]
        print(f"  {key[0]:>5} {key[1] + '/' + key[2]:<14} {pf[0] + '/' + mf[0]:>22} "
              f"{pf[1] + '/' + mf[1]:>24} {pf[2] + '/' + mf[2]:>24}  {v}")
        if key in reasons:
            print(f"        WarpLens says: {reasons[key]}")
    for note in result.get("model_notes", []):
        print(f"  note line {note['line']}: {note['reason']}")
    return tally


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--warplens", default=os.environ.get("WARPLENS", "build/ci/app/warplens"))
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument("--arg", action="append", default=[],
                        help="an argument added to every run (repeatable), e.g. --arg=--arch=h200")
    args = parser.parse_args()
    total, failed = defaultdict(int), []
    for path in args.files:
        tally = compare(args.warplens, path, args.tolerance, args.arg)
        if tally is None:
            failed.append(os.path.basename(path))
            continue
        for k, v in tally.items():
            total[k] += v
    print(f"{len(args.files)} files, lines: " +
          ", ".join(f"{v} {k}" for k, v in sorted(total.items())))
    if failed:
        print("did not run: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
