#!/usr/bin/env bash
# Warp stalls on the GPU machine, each kernel beside ncu in the same call: `warplens run --stalls
# --json` (its PC-sampling pass and the whole process timed) and ncu's WarpStateStats and
# SourceCounters sections for the same kernel's first launch (the whole ncu process timed, at the
# clocks WarpLens runs at: --clock-control none), its report exported as raw metrics and as the
# source page (SASS and CUDA lines). What each costs is its process's time less that of the same
# `warplens run` without stalls, timed first. `run --stalls` is timed twice: first with no kept
# SASS listing (a fresh cache folder: nvdisasm runs, where the build embedded none), then with the
# listing the first run kept. Then the gpu
# tests (GPU_TESTS, a gtest filter: all of them unless given). Logs and reports in
# $RESULTS/stalls.tgz; stalls_summary.py compares them here.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup stalls
export PATH="$PATH:/usr/local/cuda/bin"
export WARPLENS_ASSETS="$PWD/assets"
export XDG_CACHE_HOME="$OUT/cache"
rm -rf "$XDG_CACHE_HOME"
KERNELS=${KERNELS:-"matmul/naive matmul/tiled matmul/blocktile_2d matmul/async_copy transpose/naive
transpose/smem bank_conflicts/stride:stride=32 bank_conflicts/padded softmax/block_shared
examples/transpose.cu"}

ms_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }

# The kernel's function as ncu's -k matches it: the base name, no parameters or template.
function_of() {
  python3 -c 'import json,sys,subprocess
f=json.load(open(sys.argv[1]))["stalls"]["function"]
d=subprocess.run(["c++filt",f],capture_output=True,text=True).stdout.strip()
print(d.split("(")[0].split("<")[0].split(" ")[-1].split("::")[-1])' "$1"
}

echo "| kernel | run ms | run --stalls exit | ms first | ms kept listing | pass s | ncu exit | ms |" \
  "stalls cost / ncu's, first | kept listing |" > "$OUT/costs.md"
echo "|---|---|---|---|---|---|---|---|---|---|" >> "$OUT/costs.md"
for spec in $KERNELS; do
  id=${spec%%:*}
  params=()
  [[ $spec == *:* ]] && params=(--param "${spec#*:}")
  name=$(echo "$spec" | tr '/:=.' '____')
  start=$(date +%s.%N)
  timeout 120 "$WL" run "$id" "${params[@]}" --max-time 0.01 > "$OUT/plain_$name.log" 2>&1 ||
    echo "FAILED: run $spec" >> "$OUT/costs.md"
  plain_ms=$(ms_since "$start")
  start=$(date +%s.%N)
  timeout 120 "$WL" run "$id" "${params[@]}" --max-time 0.01 --stalls --json > "$OUT/wl_$name.json" 2> "$OUT/wl_$name.err"
  wl_rc=$?
  wl_ms=$(ms_since "$start")
  start=$(date +%s.%N)
  timeout 120 "$WL" run "$id" "${params[@]}" --max-time 0.01 --stalls --json > "$OUT/wl2_$name.json" 2> "$OUT/wl2_$name.err" ||
    wl_rc="$wl_rc, again $?"
  kept_ms=$(ms_since "$start")
  pass=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["stalls"]["seconds"],3))' "$OUT/wl_$name.json" 2>/dev/null)
  fn=$(function_of "$OUT/wl_$name.json" 2>/dev/null)
  start=$(date +%s.%N)
  timeout 300 ncu --clock-control none --section WarpStateStats --section SourceCounters -k "regex:^${fn}$" \
    --launch-count 1 -f -o "$OUT/ncu_$name" "$WL" run "$id" "${params[@]}" --max-time 0.01 \
    > "$OUT/ncu_$name.log" 2>&1
  ncu_rc=$?
  ncu_ms=$(ms_since "$start")
  ratio() {
    awk -v p="$plain_ms" -v w="$1" -v n="$ncu_ms" \
      'BEGIN { if (n > p) printf "%.3f", (w - p) / (n - p); else print "n/a" }'
  }
  echo "| $spec ($fn) | $plain_ms | $wl_rc | $wl_ms | $kept_ms | $pass | $ncu_rc | $ncu_ms |" \
    "$(ratio "$wl_ms") | $(ratio "$kept_ms") |" >> "$OUT/costs.md"
  ncu -i "$OUT/ncu_$name.ncu-rep" --page raw --csv > "$OUT/raw_$name.csv" 2>&1
  ncu -i "$OUT/ncu_$name.ncu-rep" --page source --csv --print-source sass > "$OUT/sass_$name.csv" 2>&1
  ncu -i "$OUT/ncu_$name.ncu-rep" --page source --csv --print-source cuda > "$OUT/cuda_$name.csv" 2>&1
done

timeout 300 "$BUILD/tests/wl_gpu_tests" --gtest_filter="${GPU_TESTS:-*}" > "$OUT/gpu_tests.log" 2>&1
echo "exit $?" >> "$OUT/gpu_tests.log"

tar -czf "$RESULTS/stalls.tgz" -C "$OUT" .
cat "$OUT/costs.md"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gpu_tests.log"
