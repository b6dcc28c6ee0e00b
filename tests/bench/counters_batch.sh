#!/usr/bin/env bash
# One call on the GPU machine for the counters: the gpu tests, WarpLens's sweep against ncu
# (counters_vs_ncu.sh), and every bundled kernel's counters beside the model
# (kernel_counters.py), plus the shared-memory widths and strides that pin down how wide
# accesses split into wavefronts. Short tables last; logs under $OUT (logs.tar.gz).
set -uo pipefail
BUILD=${BUILD:-build/gpu}
export OUT=${OUT:-/tmp/warplens-out} BUILD
mkdir -p "$OUT/logs"
export PATH="$PATH:/usr/local/cuda/bin"
# Libraries the GUI side of warplens links that the GPU machine lacks, copied beside the build.
[ -d "$BUILD/runtime-libs" ] && export LD_LIBRARY_PATH="$BUILD/runtime-libs:${LD_LIBRARY_PATH:-}"
WL="$BUILD/app/warplens"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader > "$OUT/logs/device.txt"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  # The gpu label is the whole wl_gpu_tests executable; run directly, it needs only itself carried.
  "$BUILD/tests/wl_gpu_tests" > "$OUT/logs/gpu_tests.log" 2>&1
  echo "gpu tests exit $?" >> "$OUT/logs/gpu_tests.log"
fi
OUT="$OUT/logs" bash tests/bench/counters_vs_ncu.sh > "$OUT/logs/ncu.log" 2>&1

widths=()
for w in 8 16; do
  widths+=("bank_conflicts/broadcast:width=$w")
  for s in 1 2 3 4 8; do widths+=("bank_conflicts/stride:width=$w,stride=$s"); done
done
python3 tests/bench/kernel_counters.py "$WL" "$OUT/logs" "${widths[@]}" > "$OUT/kernels.md" 2> "$OUT/logs/kernels.err"

cp "$OUT/logs/compare.md" "$OUT/logs/speed.md" "$OUT/" 2>/dev/null
tar -C "$OUT" -czf "$OUT/logs.tar.gz" logs && rm -rf "$OUT/logs"

echo "== device"; tar -xzOf "$OUT/logs.tar.gz" logs/device.txt
echo "== gpu tests"; tar -xzOf "$OUT/logs.tar.gz" logs/gpu_tests.log 2>/dev/null | grep -E "PASSED|FAILED|exit|tests ran" | tail -8
echo "== kernels"; cat "$OUT/kernels.md"
echo "== ncu"; tar -xzOf "$OUT/logs.tar.gz" logs/ncu.log | grep -v "^| smsp__\|^| l1tex\|^| lts\|^| dram__bytes_read" | tail -40
