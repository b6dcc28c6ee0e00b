#!/usr/bin/env bash
# Kernel files' per-line predictions beside the GPU's measurements, in one call on the GPU machine:
# every file below run with `--per-site` (tests/kernel_files/predicted_vs_measured.py: the PTX
# model's requests, sectors and wavefronts per line beside the SASS counters'), then the gpu tests
# of kernel files, then how long `warplens model` of each example takes with its predictions on
# (median of 5). Logs in $OUT/predicted_lines.tgz. Here first: cmake --build --preset ci &&
# BUILD=build/ci tests/bench/carry.sh; carry .gpu-run and .gl; run with BUILD=build/ci.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup predicted-lines
export WARPLENS_ASSETS="$PWD/assets" XDG_CACHE_HOME="$OUT/cache"

files=(examples/*.cu tests/bench/kernel_files/*.cu examples/libraries/*.cu
       tests/kernel_files/bundled/*.cu
       tests/kernel_files/hostile/h25_atomic_one_address.cu
       tests/kernel_files/hostile/h75_shared_atomics_one_bin.cu
       tests/kernel_files/hostile/h78_shared_double_stride1.cu
       tests/kernel_files/hostile/h79_shared_known_conflicts.cu
       tests/kernel_files/hostile/h80_global_known_sectors.cu
       tests/kernel_files/hostile/h91_histogram_few_bins.cu
       tests/kernel_files/hostile/h98_shared_atomic_kinds.cu)
timeout "${LINES_SECONDS:-330}" python3 tests/kernel_files/predicted_vs_measured.py \
  --warplens "$WL" "${files[@]}" > "$OUT/predicted_vs_measured.txt" 2>&1
echo "exit $?" >> "$OUT/predicted_vs_measured.txt"

timeout "${TESTS_SECONDS:-150}" "$BUILD/tests/wl_gpu_tests" --gtest_filter="${GPU_TESTS:-FileKernel*}" \
  > "$OUT/gpu_tests.log" 2>&1
echo "exit $?" >> "$OUT/gpu_tests.log"

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
{
  echo "| file | model ms (median of 5, predictions on) |"
  echo "|---|---:|"
  for file in examples/*.cu; do
    for r in 1 2 3 4 5; do
      "$WL" model "$file" --json | grep -o '"model_seconds": *[0-9.e+-]*' | awk '{ print $2 * 1000 }'
    done | median | xargs printf "| $file | %.1f |\n"
  done
} > "$OUT/model_times.md" 2>&1

tar czf "$RESULTS/predicted_lines.tgz" -C "$OUT" --exclude cache .
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gpu_tests.log"
cat "$OUT/model_times.md"
grep -E "^[^ ].*(files, lines|did not run|exit)" "$OUT/predicted_vs_measured.txt"
grep -E -A1 "DIFFERS|MEASURED|PREDICTED" "$OUT/predicted_vs_measured.txt" | head -60
