#!/usr/bin/env bash
# The memory chart on the GPU machine, each kernel beside ncu in the same call: `warplens run
# --metrics memory --json` (the chart's links, under ncu's names) and ncu's
# MemoryWorkloadAnalysis_Chart section for the same kernel's first launch, its report exported as
# raw metrics in base units. ncu leaves the clocks alone here (--clock-control none), as WarpLens
# does, so the links' shares of peak are of the same clocks. Then the Memory chart panel pictured
# by the GUI after its links are counted (1280x720 and 2560x1440, each with its sidecar), `warplens
# doctor`, GUI_SHARDS of the GUI tests
# (SHARDS, gtest's sharding; none unless given) and the gpu tests unless GPU_TESTS=none.
# memory_chart_compare.py compares them, here and there. Logs in $RESULTS/memory_chart.tgz.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup memory_chart
export PATH="$PATH:/usr/local/cuda/bin"
KERNELS=${KERNELS:-"vec_add/scalar|vec_add_scalar transpose/naive|transpose_naive \
transpose/smem|transpose_smem bank_conflicts/stride|bank_conflicts_stride \
matmul/tiled|matmul_tiled softmax/block_shared|softmax_block_shared"}

for spec in $KERNELS; do
  id=${spec%%|*} fn=${spec#*|}
  name=$(echo "$id" | tr '/' '_')
  timeout 120 "$WL" run "$id" --metrics memory --json > "$OUT/wl_$name.json" 2> "$OUT/wl_$name.err"
  echo "exit $?" >> "$OUT/wl_$name.err"
  timeout 300 ncu --section MemoryWorkloadAnalysis_Chart --clock-control none \
    -k "regex:^${fn}$" --launch-count 1 -f -o "$OUT/ncu_$name" "$WL" run "$id" --max-time 0.01 \
    > "$OUT/ncu_$name.log" 2>&1
  echo "exit $?" >> "$OUT/ncu_$name.log"
  ncu -i "$OUT/ncu_$name.ncu-rep" --page raw --csv --print-units base > "$OUT/raw_$name.csv" 2>&1
done

mkdir -p /tmp/gui-home
for size in 1280x720 2560x1440; do
  printf 'window %s\nclick "View"\nclick "Memory chart"\nwait\nclick "Count the chart'"'"'s links" in "Memory chart"\nkey F5\nwait\nscreenshot %s/chart_%s.png\n' \
    "$size" "$OUT" "$size" > "$OUT/chart_$size.script"
  HOME=/tmp/gui-home timeout 120 "$WL" --headless --kernel transpose/naive \
    --script "$OUT/chart_$size.script" > "$OUT/chart_$size.log" 2>&1
  echo "exit $?" >> "$OUT/chart_$size.log"
done
"$WL" doctor > "$OUT/doctor.txt" 2>&1
echo "exit $?" >> "$OUT/doctor.txt"

if [[ -n ${GUI_SHARDS:-} ]]; then
  for shard in $GUI_SHARDS; do
    GTEST_TOTAL_SHARDS=${SHARDS:-1} GTEST_SHARD_INDEX=$shard timeout "${GUI_SECONDS:-420}" \
      "$BUILD/tests/wl_gui_tests" --gtest_filter="${GUI_TESTS:-*}" >> "$OUT/gui_tests.log" 2>&1
    echo "exit $? (shard $shard of ${SHARDS:-1})" >> "$OUT/gui_tests.log"
  done
  pkill -f "warplens worker" && sleep 1 # a stopped shard's workers hold the profiler
fi
if [[ ${GPU_TESTS:-*} != none ]]; then
  timeout "${GPU_SECONDS:-300}" "$BUILD/tests/wl_gpu_tests" --gtest_filter="${GPU_TESTS:-*}" \
    > "$OUT/gpu_tests.log" 2>&1
  echo "exit $?" >> "$OUT/gpu_tests.log"
fi

tar -czf "$RESULTS/memory_chart.tgz" -C "$OUT" .
python3 tests/bench/memory_chart_compare.py "$OUT"
cat "$OUT"/chart_*.log "$OUT/doctor.txt"
[[ -f $OUT/gui_tests.log ]] && grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gui_tests.log"
[[ -f $OUT/gpu_tests.log ]] && grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gpu_tests.log"
exit 0
