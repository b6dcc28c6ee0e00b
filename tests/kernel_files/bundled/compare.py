#!/usr/bin/env python3
"""Cross-check of the two access models: each bundled kernel against a kernel file that mirrors it.

Every .cu file in this folder is a kernel file whose device code makes the same accesses as one
bundled kernel (kernels/<family>.cu), named on its first line:

    // mirrors: coalescing/stride
    // compare at: --param n=4096 --param stride=3     (a size small enough that both are exact)
    // compare at: --param cols=516 (file only: --param LANE_PACKS=5)
                                                        (a tunable the bundled kernel derives)
    // compare default: --param width=4                 (optional: extra arguments at the default)
    // rename: width=WIDTH                              (optional: a bundled parameter's name in
                                                         the file, where the file cannot use it:
                                                         a tunable is a macro, and `width` would
                                                         rename __shfl_sync's parameter)
    // known: TEXT                                      (optional: why an exact pair differs)

For each file both models run, `warplens model KERNEL --json ARGS` and `warplens model FILE --json
ARGS` (the same ARGS, renamed for the file), first at the small size, where every site of both must
be exact, then at the default size, where both sample. Sites are paired as a multiset of (space, op,
width, requests, sectors, wavefronts): the bundled sites' names and the file's lines differ. Those
left over are paired by space and op in source order and printed as DIFFERS. At the default size the
pairs found at the small size are compared on sectors and wavefronts per request (and requests).

The first `compare at` line should use the file's default tunables (WIDTH, TILE, ...): the
default-size rows find the file's sites by the lines, spaces, ops and widths that line's run gave.
Each model's notes are printed (the file model's say what it could not run: cp.async, a block past
its budget of warp instructions, whose counts are then partial and whose later lines may have no
site at all). DRAM bytes are printed beside the exact pairs but are not part of the verdict.
--brief prints one line per file and only the rows that differ.

Exit status: 1 if any exact comparison differs (or a small size is not exact, or a model fails),
else 0. With --allow-known a file whose header has a `// known:` line does not count.

Standard library only. The binary: --warplens, else $WARPLENS, else the repo's build/ci/app/warplens,
else warplens on PATH.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def find_warplens(given):
    if given:
        return given
    if os.environ.get("WARPLENS"):
        return os.environ["WARPLENS"]
    built = os.path.join(REPO, "build", "ci", "app", "warplens")
    if os.path.exists(built):
        return built
    return shutil.which("warplens") or "warplens"


class Header:
    def __init__(self, path):
        self.path = path
        self.mirrors = None
        self.small = []  # one list of arguments per `compare at` line
        self.default = []
        self.rename = {}
        self.file_only = {}  # per `compare at` line: arguments the file alone takes (a tunable)
        self.known = []
        self.varies = []  # file sites NVRTC emits in some compiles only (their names)
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for line in lines:
            m = re.match(r"\s*//\s*(mirrors|compare at|compare default|rename|known|compiler may add):\s*(.*)$", line)
            if not m:
                continue
            word, text = m.group(1), m.group(2).strip()
            if word == "mirrors":
                self.mirrors = text
            elif word == "compare at":
                extra = re.search(r"\(file only: (.*)\)\s*$", text)
                both = shlex.split(text[:extra.start()] if extra else text)
                self.small.append(both)
                self.file_only[" ".join(both)] = shlex.split(extra.group(1)) if extra else []
            elif word == "compare default":
                self.default = shlex.split(text)
            elif word == "rename":
                for part in text.split(","):
                    old, new = part.split("=")
                    self.rename[old.strip()] = new.strip()
            elif word == "known":
                self.known.append(text)
            elif word == "compiler may add":  # a site's name, then why in brackets
                self.varies.append(text.split(" (")[0])
        if not lines or not lines[0].startswith("// mirrors:"):
            raise SystemExit(f"{path}: the first line must be '// mirrors: FAMILY/VARIANT'")
        if not self.small:
            raise SystemExit(f"{path}: no '// compare at: ARGS' line (a size where both are exact)")

    def file_args(self, args):
        """The arguments with the bundled parameters' names changed to the file's, and the file's
        own extra arguments for that line."""
        out = []
        for a in args:
            m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)$", a)
            if m and m.group(1) in self.rename:
                a = self.rename[m.group(1)] + "=" + m.group(2)
            out.append(a)
        return out + self.file_only.get(" ".join(args), [])


def model(warplens, kernel, args):
    command = [warplens, "model", kernel, "--json"] + args
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(" ".join(shlex.quote(c) for c in command) + ": " +
                           (done.stderr.strip() or done.stdout.strip()))
    return json.loads(done.stdout)


def key(site):
    return (site["space"], site["op"], site["width"], site["requests"], site["sectors"],
            site["wavefronts"])


def pair_sites(bundled, filed):
    """(bundled site or None, file site or None, equal) in the bundled order, then the file's."""
    filed = sorted(filed, key=lambda s: (s.get("line", 0), s["space"], s["op"], s["width"]))
    used = [False] * len(filed)
    pairs = []
    left = []
    for b in bundled:
        for i, f in enumerate(filed):
            if not used[i] and key(f) == key(b):
                used[i] = True
                pairs.append((b, f, True))
                break
        else:
            left.append(b)
    # What is left over, paired by space and op in source order (a width the compiler changed
    # shows as a pair of different widths).
    for b in left:
        if b["requests"] == 0:
            pairs.append((b, None, True))  # no access on either side: the file has no site
            continue
        for i, f in enumerate(filed):
            if not used[i] and (f["space"], f["op"]) == (b["space"], b["op"]):
                used[i] = True
                pairs.append((b, f, False))
                break
        else:
            pairs.append((b, None, False))
    for i, f in enumerate(filed):
        if not used[i]:
            pairs.append((None, f, False))
    return pairs


def describe(site):
    if site is None:
        return "-"
    return site["name"]


def figure(site, name):
    return "-" if site is None else str(site[name])


def per_request(site, name):
    """Sectors (global) or wavefronts (shared) per request; None for the other space's figure."""
    if site is None or not site["requests"]:
        return None
    if (name == "wavefronts") != (site["space"] == "shared"):
        return None
    return site[name] / site["requests"]


def relative(a, b):
    if a is None or b is None:
        return None
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def note_text(note):
    if isinstance(note, dict):
        line = note.get("line")
        return (f"line {line}: " if line else "") + str(note.get("reason", note))
    return str(note)


def compare_file(warplens, path):
    """Everything one file's comparison prints, and its counts."""
    h = Header(path)
    name = os.path.basename(path)
    result = {"file": name, "mirrors": h.mirrors, "known": h.known, "errors": [], "notes": [],
              "default_notes": [], "exact": [], "default": [], "equal": 0, "differs": 0,
              "varies": []}
    pairs = None
    for small in h.small:
        try:
            small_b = model(warplens, h.mirrors, small)
            small_f = model(warplens, path, h.file_args(small))
        except (RuntimeError, json.JSONDecodeError) as e:
            result["errors"].append(str(e))
            continue
        for label, m in (("bundled", small_b), ("file", small_f)):
            inexact = [s["name"] for s in m["sites"] if not s.get("exact", False)]
            if inexact:
                result["errors"].append(f"{' '.join(small)}: {label} model not exact: " +
                                        ", ".join(inexact))
            for note in m.get("model_notes", []) or []:
                result["notes"].append(f"{' '.join(small)}: {label}: " + note_text(note))
        run_pairs = pair_sites(small_b["sites"], small_f["sites"])
        # A site the file's compile alone has, named in the header as one NVRTC emits in some
        # processes and not others (its code depends on the compiling process's heap), is
        # reported, not counted as a difference.
        for i, (b, f, equal) in enumerate(run_pairs):
            if b is None and f is not None and f["name"] in h.varies:
                result["varies"].append(f"{' '.join(small)}: {f['name']}")
                run_pairs[i] = (b, f, True)
        result["exact"].append((" ".join(small), run_pairs))
        for b, f, equal in run_pairs:
            if b is not None or f is None or f["name"] not in h.varies:
                result["equal" if equal else "differs"] += 1
        if pairs is None:
            pairs = run_pairs
    if pairs is None:
        return result
    try:
        big_b = model(warplens, h.mirrors, h.default)
        big_f = model(warplens, path, h.file_args(h.default))
    except (RuntimeError, json.JSONDecodeError) as e:
        result["errors"].append("default size: " + str(e))
        return result
    by_name = {s["name"]: s for s in big_b["sites"]}
    by_line = {(s.get("line"), s["space"], s["op"], s["width"]): s for s in big_f["sites"]}
    for b, f, _ in pairs:
        bb = by_name.get(b["name"]) if b else None
        ff = by_line.get((f.get("line"), f["space"], f["op"], f["width"])) if f else None
        result["default"].append((bb, ff))
    result["default_args"] = h.default
    for label, m in (("bundled", big_b), ("file", big_f)):
        for note in m.get("model_notes", []) or []:
            result["default_notes"].append(f"{label}: " + note_text(note))
    result["default_exact"] = (big_b.get("model_exact"), big_f.get("model_exact"))
    return result


def print_result(r, tolerance):
    print(f"== {r['file']}  mirrors {r['mirrors']}")
    for e in r["errors"]:
        print(f"   ! {e}")
    for n in r["notes"]:
        print(f"   note: {n}")
    for args, pairs in r["exact"]:
        print(f"   exact at {args}")
        print(f"     {'bundled site':<30} {'file site':<34} {'space/op':<14}"
              f"{'width':>7} {'requests':>17} {'sectors':>19} {'wavefronts':>19}  verdict"
              f"  {'DRAM bytes b/f (not compared)':>29}")
        for b, f, equal in pairs:
            ref = b or f
            dram = ""
            if ref["space"] == "global":
                dram = figure(b, "dram_bytes") + "/" + figure(f, "dram_bytes")
                if b and f and b["dram_bytes"] != f["dram_bytes"]:
                    dram += " *"
            print(f"     {describe(b):<30.30} {describe(f):<34.34} "
                  f"{ref['space'] + '/' + ref['op']:<14}"
                  f"{figure(b, 'width') + '/' + figure(f, 'width'):>7} "
                  f"{figure(b, 'requests') + '/' + figure(f, 'requests'):>17} "
                  f"{figure(b, 'sectors') + '/' + figure(f, 'sectors'):>19} "
                  f"{figure(b, 'wavefronts') + '/' + figure(f, 'wavefronts'):>19}  "
                  f"{'DIFFERS' if not equal else 'VARIES ' if b is None else 'EQUAL  '}"
                  f"  {dram:>29}")
    if r["default"]:
        print(f"   default size {' '.join(r['default_args'])}".rstrip())
        print(f"     {'bundled site':<30} {'file site':<34} {'requests b/f':>24} {'f/b':>6}"
              f" {'sect/req b/f':>16} {'wf/req b/f':>14}  verdict")
        for b, f in r["default"]:
            sb, sf = per_request(b, "sectors"), per_request(f, "sectors")
            wb, wf = per_request(b, "wavefronts"), per_request(f, "wavefronts")
            worst = max([d for d in (relative(sb, sf), relative(wb, wf)) if d is not None],
                        default=None)
            verdict = ("-" if worst is None else
                       ("CLOSE" if worst <= tolerance else "FAR") + f" {100 * worst:.1f}%")
            req = figure(b, "requests") + "/" + figure(f, "requests")

            def pr(x):
                return "-" if x is None else f"{x:.2f}"

            ratio = (f"{f['requests'] / b['requests']:.3f}" if b and f and b["requests"] else "-")
            print(f"     {describe(b):<30.30} {describe(f):<34.34} {req:>24} {ratio:>6}"
                  f" {pr(sb) + '/' + pr(sf):>16} {pr(wb) + '/' + pr(wf):>14}  {verdict}")
    for n in r["default_notes"]:
        print(f"     note: {n}")
    if r["differs"] and r["known"]:
        for k in r["known"]:
            print(f"   known: {k}")
    for v in r["varies"]:
        print(f"   compiler added (allowed by the header): {v}")


def print_brief(r, tolerance):
    runs = len(r["exact"])
    ratios = [f["requests"] / b["requests"] for b, f in r["default"] if b and f and b["requests"]]
    worst = [max(d for d in (relative(per_request(b, "sectors"), per_request(f, "sectors")),
                             relative(per_request(b, "wavefronts"), per_request(f, "wavefronts")))
                 if d is not None) for b, f in r["default"] if b and f]
    missing = [b["name"] for b, f in r["default"] if b and not f and b["requests"]]
    text = (f"{r['file']:<34} {r['mirrors']:<28} exact: {runs} runs, {r['equal']} EQUAL, "
            f"{r['differs']} DIFFERS")
    if ratios:
        text += (f"; default: requests file/bundled {min(ratios):.3f}..{max(ratios):.3f}, "
                 f"per request worst {100 * max(worst, default=0):.1f}%")
    if missing:
        text += "; no file site at the default: " + ", ".join(missing)
    print(text)
    for e in r["errors"]:
        print(f"   ! {e}")
    for args, pairs in r["exact"]:
        for b, f, equal in pairs:
            if not equal:
                print(f"   DIFFERS at {args}: {describe(b)} {key(b) if b else '-'} / "
                      f"{describe(f)} {key(f) if f else '-'}")
    if r["differs"]:
        for k in r["known"]:
            print(f"   known: {k}")
    for v in r["varies"]:
        print(f"   compiler added (allowed by the header): {v}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", help="kernel files (default: every .cu here)")
    parser.add_argument("--warplens", help="the warplens binary")
    parser.add_argument("--jobs", type=int, default=2, help="files compared at once")
    parser.add_argument("--tolerance", type=float, default=0.05,
                        help="default size: largest relative difference per request called CLOSE")
    parser.add_argument("--brief", action="store_true",
                        help="one line per file, and only the rows that differ")
    parser.add_argument("--allow-known", action="store_true",
                        help="a file with a `// known:` line does not fail the run")
    args = parser.parse_args()
    warplens = find_warplens(args.warplens)
    files = args.files or sorted(glob.glob(os.path.join(HERE, "*.cu")))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda p: compare_file(warplens, p), files))
    failed = []
    equal = differs = dram = 0
    close = far = 0
    for r in results:
        (print_brief if args.brief else print_result)(r, args.tolerance)
        equal += r["equal"]
        differs += r["differs"]
        dram += sum(1 for _, pairs in r["exact"] for b, f, e in pairs
                    if e and b and f and b["space"] == "global" and
                    b["dram_bytes"] != f["dram_bytes"])
        for b, f in r["default"]:
            ds = [d for d in (relative(per_request(b, "sectors"), per_request(f, "sectors")),
                              relative(per_request(b, "wavefronts"), per_request(f, "wavefronts")))
                  if d is not None]
            if ds:
                if max(ds) <= args.tolerance:
                    close += 1
                else:
                    far += 1
        bad = bool(r["errors"]) or r["differs"] > 0
        if bad and not (args.allow_known and r["known"]):
            failed.append(r["file"])
    print()
    print(f"{len(results)} files; exact pairs: {equal} EQUAL, {differs} DIFFERS; "
          f"default size: {close} CLOSE, {far} FAR (tolerance {100 * args.tolerance:.0f}% per "
          f"request)")
    if dram:
        print(f"{dram} EQUAL global pairs differ in DRAM bytes (marked *; not part of the verdict: "
              f"both models cap a buffer's modelled reads at its size, and share the cap among the "
              f"sites that read it in their own order, so a share may differ by a rounding)")
    if failed:
        print("failed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
