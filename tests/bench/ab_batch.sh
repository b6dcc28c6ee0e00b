#!/usr/bin/env bash
# One call on the GPU machine for A/B sweeps: the gpu tests, the sweep stories on the NVIDIA EGL
# device with a real worker, the A/B sweeps of docs/sweeps.md measured from the command line (JSON,
# CSV, the table), an A/A sweep (one kernel against itself: how often noise alone reads as a
# difference), an A/B sweep measured through the GUI's worker; all in $OUT/ab.tgz, a table last.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
source "$(dirname "$0")/batch_setup.sh"
batch_setup ab
run_gpu_and_sweep_tests

ab() { # NAME ARGS...
  local name=$1; shift
  /usr/bin/time -f "%e s wall" "$WL" sweep "$@" --json "$OUT/$name.json" --csv "$OUT/$name.csv" \
    > "$OUT/$name.txt" 2> "$OUT/$name.err"
  echo "exit $?" >> "$OUT/$name.err"
}
ab transpose transpose/smem --against transpose/smem_padded --block-x 32 --block-y 1,2,4,8,16,32 \
  --param-range rows=2048,4096,8192,16384 --metrics default
ab matmul matmul/naive --against matmul/tiled --size 2048x2048x2048 --block-x 8,16,32 \
  --block-y 8,16,32
ab same transpose/smem --against transpose/smem --block-x 32 --block-y 1,2,4,8,16,32 \
  --param-range rows=2048,4096,8192,16384

cat > /tmp/measured_ab_sweep.txt <<'EOF'
window 1600x1000
click "transpose/smem"
wait
click "Sweep"
set "block x" "32" in "Sweep"
set "block y" "1,2,4,8,16,32" in "Sweep"
click "against" in "Sweep"
click "transpose/smem_padded" in "Sweep"
click "Measure sweep"
wait
click "figure" in "Sweep"
click "median time (ms)"
screenshot measured-ab.png sweep
EOF
(cd "$OUT" && HOME=/tmp/gui-home "$OLDPWD/$WL" --headless --script /tmp/measured_ab_sweep.txt \
  > gui_ab.log 2>&1; echo "exit $?" >> gui_ab.log)

tar czf "$RESULTS/ab.tgz" -C "$OUT" .

print_test_results
echo "== gui measured A/B"; tail -3 "$OUT/gui_ab.log"
python3 - "$OUT/measured-ab.json" <<'EOF'
import json, sys
try:
    s = json.load(open(sys.argv[1]))["shown"]["sweep"]
    print({k: s.get(k) for k in ("origin", "points", "measured", "against", "problem")})
    print(s.get("comparison", {}).get("verdicts"))
except Exception as e:
    print("no sidecar:", e)
EOF
for name in transpose matmul same; do
  echo "== $name: $(grep -E 'set-up|exit|wall' "$OUT/$name.err" | tr '\n' ' ' | cut -c1-300)"
  tail -n 40 "$OUT/$name.txt"
done
