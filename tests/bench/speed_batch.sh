#!/usr/bin/env bash
# One call on the GPU machine for speed: the gpu tests; the cold 32- and 64-shape sweeps against
# ncu with the counters compared (counters_vs_ncu.sh); where each sweep's time goes for vec_add,
# matmul/tiled and softmax (WarpLens's own breakdown, process start to the last counter pass); the
# live GUI and the warm sweep through the worker (wl_live_gui). All in $OUT/speed.tgz, tables last.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
source "$(dirname "$0")/batch_setup.sh"
batch_setup speed
cp .gpu-run/bin/wl_bench .gpu-run/bin/wl_live_gui "$BUILD/tests/bench/"
GUI_TESTS=${GUI_TESTS:-StorySweep*.*:SweepView.*} run_gpu_and_sweep_tests

OUT="$OUT/ncu" tests/bench/counters_vs_ncu.sh > "$OUT/counters_vs_ncu.log" 2>&1

# Each kernel's 32-ish-shape sweep with the default counters, in a new process: the breakdown.
breakdown() { # NAME ARGS...
  local name=$1; shift
  /usr/bin/time -f "%e s wall (whole process)" "$WL" sweep "$@" --metrics default \
    > "$OUT/$name.txt" 2> "$OUT/$name.err"
  echo "exit $?" >> "$OUT/$name.err"
}
breakdown vec_add vec_add/scalar --block 32:1024:32
breakdown matmul_tiled matmul/tiled --block-x 16 --block-y 16 --param-range tile=16 --size 2048x2048x2048
breakdown softmax softmax/block_tree --block 32,64,128,256,512,1024

"$BUILD/tests/bench/wl_live_gui" "$WL" vec_add/scalar > "$OUT/live.md" 2>&1

tar czf "$RESULTS/speed.tgz" -C "$OUT" .

print_test_results
echo "== sweeps against ncu"; grep -A4 "^| |" "$OUT/ncu/speed.md"; tail -1 "$OUT/ncu/speed.md"
echo "== counters against ncu (application replay, unlocked clocks)"
sed -n '/clock-control none/,/^$/p' "$OUT/ncu/compare.md" | tail -n +2 | head -20
for name in vec_add matmul_tiled softmax; do
  echo "== breakdown: $name"; grep -E "process start|^counters:|s wall|^exit" "$OUT/$name.err"
done
echo "== live and warm sweep"; tail -8 "$OUT/live.md"
