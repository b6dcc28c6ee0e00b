#!/usr/bin/env bash
# One call on a machine with two GPUs: the same sweep over `--workers 1` and `--workers 2` (every
# point's work counters compared, the wall times), a longer 2D sweep without counters for the
# speed-up, `--per-device` (a series per GPU, drawn headless in the Sweep panel), and a worker
# killed mid-sweep on one GPU. Everything in $OUT/multi_gpu.tgz, a table last.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
RESULTS=${OUT:-/tmp}
OUT=/tmp/warplens-multi-gpu
rm -rf "$OUT" && mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
source tests/bench/batch_setup.sh && unpack_carried_binaries
export LD_LIBRARY_PATH="$PWD/.gpu-run/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
WL="$PWD/.gpu-run/bin/warplens"
nvidia-smi -L | tee "$OUT/devices.txt"

sweep() { # NAME ARGS...
  local name=$1; shift
  local start=$(date +%s.%N)
  "$WL" sweep "$@" --json "$OUT/$name.json" --csv "$OUT/$name.csv" > "$OUT/$name.txt" \
    2> "$OUT/$name.err"
  local code=$?
  echo "$name exit $code wall $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s" |
    tee -a "$OUT/walls.txt"
}
COUNTED=(vec_add/scalar --block 32:1024:32 --metrics default)
sweep one "${COUNTED[@]}" --workers 1
sweep two "${COUNTED[@]}" --workers 2
# Points that take long enough for the speed-up to show: naive matmuls of 4096^3 (tens of
# milliseconds a launch, each point half a second or more of verification and timing).
LONG=(matmul/naive --size 4096x4096x4096 --block-x 8,16,32,64 --block-y 4,8,16 --max-time 0.5)
sweep long_one "${LONG[@]}" --workers 1
sweep long_two "${LONG[@]}" --workers 2
sweep per_device "${COUNTED[@]}" --per-device --workers 2

# A worker killed mid-sweep on one GPU: its chunk is given back, the other GPU's worker (or its own
# successor) measures it.
# Workers run as `exec '<real path>' worker` (the sweep starts its own executable by its resolved
# path), so they are found by that path, whatever link $WL went through. A fault that was never
# injected fails the batch: a "killed" row measured without a kill proves nothing.
WL_REAL=$(readlink -f "$WL")
( for _ in $(seq 200); do [ "$(pgrep -fc "^$WL_REAL worker\$")" -ge 2 ] && break; sleep 0.05; done
  sleep 2
  victim=$(pgrep -f "^$WL_REAL worker\$" | tail -1)
  if [ -n "$victim" ] && kill -9 "$victim"; then
    echo "killed worker pid $victim at $(date +%T.%N)" >> "$OUT/victims.log"
  else
    echo "FAULT NOT INJECTED: no worker of $WL_REAL to kill" >> "$OUT/victims.log"
  fi ) &
sweep killed "${LONG[@]}" --workers 2
wait
FAULT_OK=1
grep -q "^killed worker pid [0-9]" "$OUT/victims.log" 2>/dev/null || FAULT_OK=0
grep -qE "lost|ended|killed|died" "$OUT/killed.err" || FAULT_OK=0

cat > /tmp/per_device.txt <<'EOF'
window 1600x1000
click "Sweep"
click "figure" in "Sweep"
click "median time (ms)"
wait
screenshot per-device.png sweep
EOF
(cd "$OUT" && HOME=/tmp/gui-home "$WL" --headless --model --kernel vec_add/scalar \
  --sweep-json per_device.json --script /tmp/per_device.txt > gui.log 2>&1; echo "exit $?" >> gui.log)

tar czf "$RESULTS/multi_gpu.tgz" -C "$OUT" .
cat "$OUT/victims.log" 2>/dev/null
for name in one two long_one long_two per_device killed; do
  echo "== $name"; grep -E "workers in|stopped|lost|: NVIDIA|^warplens" "$OUT/$name.err" | cut -c1-300
done
echo "== per-device tables"; grep -E "^NVIDIA|^no point" "$OUT/per_device.txt"
echo "== gui"; cat "$OUT/gui.log"
python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
def series(name):
    data = json.load(open(f"{out}/{name}.json"))
    return [data] + data.get("per_device", [])
def by_block(s):
    return {tuple(p["block"]): p for p in s["points"]}
EXACT = ("sectors", "inst_executed", "wavefronts", "bank_conflicts")
base = by_block(series("one")[0])
def compare(name, s):
    got = by_block(s)
    equal = total = 0
    ratios = []
    for block, p in got.items():
        b = base.get(block)
        if not b or "timing" not in p:
            continue
        ratios.append(p["timing"]["median_ms"] / b["timing"]["median_ms"])
        if "counters" in p and "counters" in b:
            bv = {v["name"]: v["value"] for v in b["counters"]["values"]}
            for v in p["counters"]["values"]:
                if v["name"] in bv and any(k in v["name"] for k in EXACT):
                    total += 1
                    equal += v["value"] == bv[v["name"]]
    device = next((p["arch_details"].get("uuid", "") for p in s["points"] if "arch_details" in p), "")
    measured = sum("timing" in p for p in s["points"])
    print(f"{name:16} {device[:12]:12} {len(got):>6} {measured:>8} {f'{equal}/{total}':>14} "
          f"{f'{min(ratios):.2f}..{max(ratios):.2f}' if ratios else '-':>12}")
print(f"\n{'sweep':16} {'gpu':12} {'points':>6} {'measured':>8} {'work counters':>14} {'median ratio':>12}")
compare("one", series("one")[0])
compare("two", series("two")[0])
for i, s in enumerate(series("per_device")):
    compare(f"per_device[{i}]", s)
long = {n: by_block(series(n)[0]) for n in ("long_one", "long_two", "killed")}
for n, pts in long.items():
    print(f"{n:16} points {len(pts)} measured {sum('timing' in p for p in pts.values())}")
EOF
echo "== walls"; cat "$OUT/walls.txt"
if [ "$FAULT_OK" != 1 ]; then
  echo "FAILED: the killed-worker row is void: no worker was killed, or the sweep never noticed"
  exit 1
fi
