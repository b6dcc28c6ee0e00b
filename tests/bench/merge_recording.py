#!/usr/bin/env python3
"""Joins a recording of more launches (warplens record --lessons) into another of the same GPU:
each run of the second whose kernel, parameters and block the first lacks is added.

Usage: merge_recording.py BASE.json MORE.json OUT.json"""
import json
import sys

base = json.load(open(sys.argv[1]))
extra = json.load(open(sys.argv[2]))
if (base["arch"], base["device"]) != (extra["arch"], extra["device"]):
    sys.exit(f"{sys.argv[2]} is of {extra['device']} as {extra['arch']}, not {base['device']} as "
             f"{base['arch']}")


def key(run):
    return (run["kernel"], json.dumps(run.get("params"), sort_keys=True), json.dumps(run["block"]))


have = {key(run) for run in base["runs"]}
added = 0
for run in extra["runs"]:
    if key(run) not in have:
        base["runs"].append(run)
        have.add(key(run))
        added += 1
with open(sys.argv[3], "w") as out:
    json.dump(base, out, separators=(",", ":"))
print(f"added {added} of {len(extra['runs'])} runs; now {len(base['runs'])}")
