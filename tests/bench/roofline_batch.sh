#!/usr/bin/env bash
# The roofline's figures on the GPU machine, in one call: the L2 read bandwidth (the presets' L2
# roof, wl_bench l2), then every bundled kernel at its default launch with the roofline's
# counters beside the model (roofline_counts.py), then the GUI stories (or $GUI_TESTS) with a
# real worker and the gpu tests (SKIP_TESTS=1 leaves them out). Short tables last; logs in
# $OUT/roofline.tgz. Here first: BUILD=build/ci tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
source "$(dirname "$0")/batch_setup.sh"
batch_setup roofline
cp .gpu-run/bin/wl_bench "$BUILD/tests/bench/"
"$BUILD/tests/bench/wl_bench" l2 > "$OUT/l2.md" 2>&1
python3 tests/bench/roofline_counts.py "$WL" "$OUT" "${METRICS:-roofline}" > "$OUT/counts.md" \
  2> "$OUT/counts.err"
[[ ${SKIP_TESTS:-0} == 1 ]] || run_gpu_and_sweep_tests
tar czf "$RESULTS/roofline.tgz" -C "$OUT" .
echo "== L2"; cat "$OUT/l2.md"
echo "== counts"; cat "$OUT/counts.md"; tail -3 "$OUT/counts.err"
[[ ${SKIP_TESTS:-0} == 1 ]] || print_test_results
