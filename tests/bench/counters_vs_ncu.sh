#!/usr/bin/env bash
# WarpLens's counters against Nsight Compute's, and the cost of a block-size sweep with each, in
# one call on the GPU machine: `warplens sweep vec_add/scalar` over 32 and 64 block sizes with the
# default metric set, and `ncu --metrics <the same names>` over the same 32 and 64 launches of the
# same kernel (wl_bench launches: one launch per size, each after an L2 flush, after one launch at
# a size not compared, so ncu profiles 33 and 65 launches). Wall clock includes cold start.
set -uo pipefail
BUILD=${BUILD:-build/gpu}
OUT=${OUT:-/tmp/warplens-out}
mkdir -p "$OUT"
WL="$BUILD/app/warplens"
BENCH="$BUILD/tests/bench/wl_bench"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
METRICS=$(python3 -c "import json; d=json.load(open('assets/metrics.json')); m={x['key']:x['name'] for x in d['metrics']}; print(','.join(m[k] for k in d['sets']['default']))")

# Wall-clock seconds of a command, the better of two runs (each side alike), its stderr kept in a
# file (python: the GPU machine has no bc). A run that fails ends the bench: a refused command
# takes no time, and its "speed" would be absurd.
seconds() {
  local log=$1; shift
  python3 -c '
import subprocess, sys, time
best = float("inf")
for _ in range(2):
    t = time.time()
    code = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[1], "w")).returncode
    if code != 0:
        sys.exit(f"FAILED (exit {code}): {\" \".join(sys.argv[2:])}; see {sys.argv[1]}")
    best = min(best, time.time() - t)
print(best)' "$log" "$@" || exit 1
}

# One untimed run of the plain program first, so neither side pays the driver's first start.
"$BENCH" launches vec_add/scalar 256 256 1 > /dev/null 2>&1 || { echo "FAILED: wl_bench launches"; exit 1; }
wl32=$(seconds "$OUT/wl32.err" "$WL" sweep vec_add/scalar --block 32:1024:32 --metrics default --csv "$OUT/wl32.csv" --force) || exit 1
wl64=$(seconds "$OUT/wl64.err" "$WL" sweep vec_add/scalar --block 16:1024:16 --metrics default --csv "$OUT/wl64.csv" --force) || exit 1
ncu32=$(seconds "$OUT/ncu32.err" "$NCU" --metrics "$METRICS" --kernel-name vec_add_scalar --csv --log-file "$OUT/ncu32.csv" \
        "$BENCH" launches vec_add/scalar 32 1024 32) || exit 1
ncu64=$(seconds "$OUT/ncu64.err" "$NCU" --metrics "$METRICS" --kernel-name vec_add_scalar --csv --log-file "$OUT/ncu64.csv" \
        "$BENCH" launches vec_add/scalar 16 1024 16) || exit 1
plain32=$(seconds "$OUT/plain32.err" "$BENCH" launches vec_add/scalar 32 1024 32) || exit 1
# The counters are compared under application replay: ncu's default kernel replay restores device
# memory between passes, and the write-back of what it restored lands in the measured pass's DRAM
# writes (about 2 MB here; ncu collecting the DRAM metrics alone, in one pass, matches WarpLens).
# ncu also locks the SM clock to base by default; WarpLens leaves the clocks as they are, so a
# run at the same clocks as ours separates the clock's effect (duration, achieved occupancy).
"$NCU" --metrics "$METRICS" --kernel-name vec_add_scalar --replay-mode application --csv \
       --log-file "$OUT/ncu32_app.csv" "$BENCH" launches vec_add/scalar 32 1024 32 > "$OUT/ncu32_app.err" 2>&1 ||
  { echo "FAILED: ncu --replay-mode application; see $OUT/ncu32_app.err"; exit 1; }
"$NCU" --metrics "$METRICS" --kernel-name vec_add_scalar --replay-mode application --clock-control none --csv \
       --log-file "$OUT/ncu32_app_unlocked.csv" "$BENCH" launches vec_add/scalar 32 1024 32 > "$OUT/ncu32_app_unlocked.err" 2>&1 ||
  { echo "FAILED: ncu --clock-control none; see $OUT/ncu32_app_unlocked.err"; exit 1; }

echo "WarpLens's own account of the 32-shape sweep:"; tail -2 "$OUT/wl32.err"
echo "and of the 64-shape sweep:"; tail -2 "$OUT/wl64.err"; echo
{ echo "## ncu --replay-mode application, at its default locked base clock"
  python3 tests/bench/compare_ncu.py "$OUT/wl32.csv" "$OUT/ncu32_app.csv"
  echo; echo "## ncu --replay-mode application --clock-control none (the clocks WarpLens runs at)"
  python3 tests/bench/compare_ncu.py "$OUT/wl32.csv" "$OUT/ncu32_app_unlocked.csv"
  echo; echo "## ncu's defaults (kernel replay: DRAM writes include the write-back of its memory restore)"
  python3 tests/bench/compare_ncu.py "$OUT/wl32.csv" "$OUT/ncu32.csv"; } | tee "$OUT/compare.md"
python3 - "$wl32" "$wl64" "$ncu32" "$ncu64" "$plain32" <<'PY' | tee "$OUT/speed.md"
import sys
wl32, wl64, ncu32, ncu64, plain = map(float, sys.argv[1:])
# A sweep of 32 measured shapes cannot take less than its launches do, nor ncu be 1000x slower:
# such a figure is a broken run, not a result.
if min(wl32, wl64, ncu32, ncu64) < plain or ncu32 / wl32 > 1000 or wl64 <= wl32 * 0.9:
    sys.exit(f"FAILED: absurd timings (warplens {wl32:.3f}/{wl64:.3f} s, ncu {ncu32:.3f}/{ncu64:.3f} s, "
             f"the launches alone {plain:.3f} s)")
print(f"| | 32 shapes (s) | 64 shapes (s) | per added shape (ms) |\n|---|---|---|---|")
print(f"| warplens sweep --metrics default | {wl32:.2f} | {wl64:.2f} | {1e3*(wl64-wl32)/32:.1f} |")
print(f"| ncu --metrics (same names) | {ncu32:.2f} | {ncu64:.2f} | {1e3*(ncu64-ncu32)/32:.1f} |")
print(f"| the 32 launches without a profiler | {plain:.2f} | | |")
print(f"\nwhole 32-shape sweep: {ncu32/wl32:.1f}x faster than ncu; per added shape: {(ncu64-ncu32)/max(wl64-wl32,1e-9):.1f}x cheaper")
PY
[[ ${PIPESTATUS[0]} == 0 ]] || exit 1
