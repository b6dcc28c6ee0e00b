#!/usr/bin/env bash
# Energy on the GPU machine: `warplens run --energy --json` three times in a row for each kernel
# (joules per launch, the counter's mean power beside the instantaneous readings' and what held
# the clocks down), a sweep's joules per launch over block sizes (its CSV), then the gpu tests
# (GPU_TESTS, a gtest filter: all of them unless given). Logs in $RESULTS/energy.tgz, the table
# last; energy_summary.py says how far the three runs and the two powers are apart.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup energy
export WARPLENS_ASSETS="$PWD/assets"
KERNELS=${KERNELS:-"vec_add/scalar matmul/async_copy softmax/block_shared"}

for kernel in $KERNELS; do
  name=$(echo "$kernel" | tr '/:=.' '____')
  for i in 1 2 3; do
    timeout 120 "$WL" run "$kernel" --energy --json > "$OUT/run_${name}_$i.json" \
      2> "$OUT/run_${name}_$i.err"
    echo "exit $?" >> "$OUT/run_${name}_$i.err"
  done
done
timeout 300 "$WL" sweep vec_add/scalar --block 64:1024:64 --energy --csv "$OUT/sweep_vec_add.csv" \
  --json "$OUT/sweep_vec_add.json" \
  > "$OUT/sweep_vec_add.log" 2>&1
echo "exit $?" >> "$OUT/sweep_vec_add.log"

timeout 300 "$BUILD/tests/wl_gpu_tests" --gtest_filter="${GPU_TESTS:-*}" > "$OUT/gpu_tests.log" 2>&1
echo "exit $?" >> "$OUT/gpu_tests.log"

tar -czf "$RESULTS/energy.tgz" -C "$OUT" .
python3 tests/bench/energy_summary.py "$OUT"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gpu_tests.log"
