#!/usr/bin/env python3
"""The tune batch's table: per target, the grid's best point and time, then each strategy's
winner judged by the grid's own measurement of the same point (so two measurements of one point
are never compared), with how many points it evaluated. Then the killed-and-rerun tune, the
foreign caches and --apply. Exits 1 on a tune that failed or a figure no GPU gives.

Usage: tune_summary.py FOLDER   (the unpacked tune.tgz)"""
import glob
import json
import os
import re
import sys

folder = sys.argv[1]
bad = []


def load(name):
    try:
        return json.load(open(os.path.join(folder, name + ".json")))
    except (OSError, ValueError) as e:
        bad.append(f"{name}: {e}")
        return None


print("| target | strategy | evaluated (of allowed) | winner | its grid time | grid best | within | "
      "first within 3 % at evaluation |")
print("|---|---|---|---|---|---|---|---|")
for grid_path in sorted(glob.glob(os.path.join(folder, "*_grid.json"))):
    target = os.path.basename(grid_path)[:-len("_grid.json")]
    grid = load(target + "_grid")
    if not grid:
        continue
    times = {e["point"]: e["cost"] for e in grid["evaluations"] if "cost" in e}
    if not times or any(not 1e-6 < t < 1e4 for t in times.values()):
        bad.append(f"{target}: grid times missing or absurd")
        continue
    best_point = min(times, key=times.get)
    best = times[best_point]
    for strategy in ["grid", "model", "random1", "random2", "random3"]:
        run = load(f"{target}_{strategy}")
        if not run or not run.get("best"):
            bad.append(f"{target} {strategy}: no winner")
            continue
        winner = run["best"][0]["point"]
        t = times.get(winner)
        within = f"{(t / best - 1) * 100:.1f} %" if t else "not in the grid"
        # Judged by the grid's time of each point it evaluated, in its order: how soon a search
        # reaches the best's 3 % (the default launch, always first, counts).
        first = next((i + 1 for i, e in enumerate(run["evaluations"])
                      if times.get(e["point"], float("inf")) <= 1.03 * best), "never")
        print(f"| {target} | {strategy} | {len(run['evaluations'])} ({run['allowed']}) | "
              f"{run['best'][0]['label']} | {t if t is None else f'{t:.4f} ms'} | "
              f"{best:.4f} ms | {within} | {first} |")

print()
for name in ["killed.txt", "killed_again.log", "foreign.log", "apply.log"]:
    path = os.path.join(folder, name)
    if os.path.exists(path):
        print(f"== {name}")
        text = open(path).read()
        print("\n".join(text.splitlines()[-12:]))
again = load("killed_again")
if again:
    print(f"rerun after the kill: {again['measured']} measured, {again['from_cache']} from the cache")
    keys = [json.loads(line).get("key") for line in open(os.path.join(folder, "killed.jsonl"))][1:]
    if len(keys) != len(set(keys)):
        bad.append("the killed tune's cache holds a point twice")
for log in glob.glob(os.path.join(folder, "*.log")):
    if re.search(r"^exit (?!0)", open(log).read(), re.M) and "killed" not in log \
            and "foreign" not in log:
        bad.append(f"{os.path.basename(log)}: {open(log).read().strip().splitlines()[-1]}")
for line in bad:
    print("FAILED:", line)
sys.exit(1 if bad else 0)
