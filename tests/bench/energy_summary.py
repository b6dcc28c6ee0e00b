#!/usr/bin/env python3
"""The energy batch's table: per kernel, each run's joules per launch and how far the three are
apart, the counter's mean power beside the instantaneous readings' (energy against mean power x
time), and what held the clocks down; then the sweep's joules per launch per block. Exits 1 on a
run that failed or a figure no GPU gives (no energy, power outside 1 W to 5 kW)."""
import csv
import glob
import json
import os
import re
import sys

folder = sys.argv[1]
bad = []
print("| kernel | run | joules per launch | launches | batch ms | window ms (counter step) | "
      "counter W | sampled W | counted energy / (sampled W x window) | clocks held by |")
print("|---|---|---|---|---|---|---|---|---|---|")
spread = {}
for path in sorted(glob.glob(os.path.join(folder, "run_*_[123].json"))):
    name, run = re.match(r".*/run_(.*)_(\d)\.json$", path).groups()
    try:
        energy = json.load(open(path))["energy"]
    except (OSError, ValueError, KeyError) as e:
        bad.append(f"{name} run {run}: {e}")
        continue
    if not energy["available"]:
        bad.append(f"{name} run {run}: {energy['reason']}")
        continue
    mean = energy["mean_power_w"]
    sampled = energy["sampled_power_w"]
    if not 1 <= mean <= 5000:
        bad.append(f"{name} run {run}: mean power {mean} W")
    agree = (energy["window_joules"] / (sampled * energy["window_seconds"]) if sampled > 0
             else float("nan"))
    spread.setdefault(name, []).append(energy["joules_per_launch"])
    print(f"| {name} | {run} | {energy['joules_per_launch'] * 1e3:.4f} mJ | {energy['launches']} | "
          f"{energy['batch_ms']:.1f} | {energy['window_seconds'] * 1e3:.0f} "
          f"({energy['counter_step_ms']:.0f}) | {mean:.1f} | "
          f"{sampled:.1f} | {agree:.3f} | "
          f"{energy['clocks_held_by'] or 'none'} |")
print()
print("| kernel | runs | spread of joules per launch (max / min - 1) |")
print("|---|---|---|")
for name, values in spread.items():
    print(f"| {name} | {len(values)} | {(max(values) / min(values) - 1) * 100:.2f} % |")
sweep = os.path.join(folder, "sweep_vec_add.csv")
if os.path.exists(sweep):
    print()
    print("| block | median ms | joules per launch | mean power W |")
    print("|---|---|---|---|")
    for row in csv.DictReader(open(sweep)):
        joules = row.get("energy_per_launch", "")
        print(f"| {row.get('block_x', '')} | {row.get('median_time', '')} | "
              f"{float(joules) * 1e3:.4f} mJ |" if joules else f"| {row.get('block_x', '')} | | |",
              row.get("mean_power", ""), "|")
for line in bad:
    print("FAILED:", line)
sys.exit(1 if bad else 0)
