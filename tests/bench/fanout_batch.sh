#!/usr/bin/env bash
# One call on the GPU machine for sweeps dealt out over workers: the same 64-point sweep in one
# process, over one worker, over two workers (both on the one GPU), over `--workers 1`, over two
# workers one of which is killed mid-sweep, and per device over two workers (one series: one GPU); every point's counters compared with the in-process
# sweep's, the medians' ratios, the wall times. Everything in $OUT/fanout.tgz, a table last.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl (the
# binary links the GUI's EGL).
set -uo pipefail
RESULTS=${OUT:-/tmp}
OUT=/tmp/warplens-fanout
rm -rf "$OUT" && mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
source tests/bench/batch_setup.sh && unpack_carried_binaries
export LD_LIBRARY_PATH="$PWD/.gpu-run/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
WL="$PWD/.gpu-run/bin/warplens"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"

# 64 points; a short timing budget each, so a sweep takes a few seconds and a kill lands mid-way.
TIMING=(vec_add/scalar --block 16:1024:16 --max-time 0.02)
ARGS=("${TIMING[@]}" --metrics default)
sweep() { # NAME EXTRA...
  local name=$1; shift
  local start=$(date +%s.%N)
  "$WL" sweep "${ARGS[@]}" "$@" --json "$OUT/$name.json" > "$OUT/$name.txt" 2> "$OUT/$name.err"
  local code=$?
  echo "$name exit $code wall $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s" |
    tee -a "$OUT/walls.txt"
}
sweep inproc
sweep one --worker "$WL worker"
sweep two --worker "$WL worker" --worker "$WL worker"
sweep local1 --workers 1

# A worker killed once the sweep is under way: its chunk goes back to the queue. With counters, over
# one worker (its client starts another); without, over two (the other one takes the chunk).
kill_a_worker() { # WORKERS
  for _ in $(seq 200); do
    [ "$(pgrep -fc "^$WL worker\$")" -ge "$1" ] && break
    sleep 0.05
  done
  sleep 1.2
  victim=$(pgrep -of "^$WL worker\$") # the worker itself, not the sweep naming it
  echo "killed worker pid $victim at $(date +%T.%N)" >> "$OUT/victims.log"
  kill -9 "$victim"
}
kill_a_worker 1 &
sweep killed --worker "$WL worker"
wait
# Without counters two workers share one GPU's timing work (their timings interfere, so these are
# about the fan-out, not measurements to trust).
ARGS=("${TIMING[@]}")
sweep one_timing --worker "$WL worker"
sweep two_timing --worker "$WL worker" --worker "$WL worker"
kill_a_worker 2 &
sweep killed_timing --worker "$WL worker" --worker "$WL worker"
wait
# Per device: each worker is asked its GPU first; both are on the one H100, so one series.
sweep per_device --per-device --worker "$WL worker" --worker "$WL worker"

tar czf "$RESULTS/fanout.tgz" -C "$OUT" .
cat "$OUT/victims.log"
for name in killed killed_timing; do
  echo "== what $name said"; grep -E "lost|stopped|workers in" "$OUT/$name.err" | cut -c1-300
done
for name in one two local1 one_timing two_timing per_device; do echo "== $name"; grep -E "workers in|: NVIDIA" "$OUT/$name.err" | cut -c1-300; done
echo "== per_device's table"; head -3 "$OUT/per_device.txt"
python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
def points(name):
    data = json.load(open(f"{out}/{name}.json"))
    by_block = {}
    for p in data["points"]:
        block = tuple(p["block"])
        by_block[block] = p
    return by_block
base = points("inproc")
# Counters that count work (sectors, instructions, wavefronts) must be equal; the ones that
# measure time or DRAM traffic vary from run to run.
EXACT = ("sectors", "inst_executed", "wavefronts", "bank_conflicts")
print(f"\n{'sweep':8} {'points':>6} {'measured':>8} {'verified':>8} {'exact counters equal':>21} "
      f"{'other counters max diff':>24} {'median ratio (min..max)':>24}")
for name in ("inproc", "one", "two", "local1", "killed", "one_timing", "two_timing", "killed_timing",
             "per_device"):
    got = points(name)
    measured = sum(1 for p in got.values() if "timing" in p)
    verified = sum(1 for p in got.values() if p.get("verification", {}).get("passed"))
    exact_equal, exact_total, other_diff, ratios = 0, 0, 0.0, []
    for block, p in got.items():
        b = base.get(block)
        if not b or "counters" not in p or "counters" not in b:
            continue
        bv = {v["name"]: v["value"] for v in b["counters"]["values"]}
        for v in p["counters"]["values"]:
            if v["name"] not in bv:
                continue
            if any(k in v["name"] for k in EXACT):
                exact_total += 1
                exact_equal += v["value"] == bv[v["name"]]
            elif bv[v["name"]]:
                other_diff = max(other_diff, abs(v["value"] - bv[v["name"]]) / abs(bv[v["name"]]))
        ratios.append(p["timing"]["median_ms"] / b["timing"]["median_ms"])
    if not ratios:  # a sweep without counters: timings alone
        ratios = [got[k]["timing"]["median_ms"] / base[k]["timing"]["median_ms"] for k in got if k in base]
    print(f"{name:8} {len(got):>6} {measured:>8} {verified:>8} {f'{exact_equal}/{exact_total}':>21} "
          f"{other_diff:>23.1%} {f'{min(ratios):.2f}..{max(ratios):.2f}':>24}")
EOF
echo "== walls"; cat "$OUT/walls.txt"
