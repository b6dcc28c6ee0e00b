#!/usr/bin/env bash
# The variant sweeps on the GPU machine, in one call: `warplens sweep FAMILY --variants` for the
# climbing families (matmul at 4096^3, softmax at 8192x8192 and 32768x1024, reduce_sum,
# transpose), each file in $OUT for docs/kernels.md's pictures (render them here with
# `warplens --headless --sweep-json FILE`), then the sweep stories with a real worker.
# Here first: BUILD=build/ci tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
source "$(dirname "$0")/batch_setup.sh"
batch_setup variants
for entry in matmul: softmax: softmax:32768x1024 reduce_sum: transpose:; do # FAMILY:SIZE
  family=${entry%%:*} size=${entry#*:}
  name=$family${size:+.$size}
  args=()
  [[ -n $size ]] && args=(--size "$size")
  "$WL" sweep "$family" --variants "${args[@]}" --json "$OUT/variants.$name.json" \
    > "$OUT/variants.$name.txt" 2> "$OUT/variants.$name.err"
  echo "== $name: exit $?"
  cat "$OUT/variants.$name.txt"
done
"$BUILD/tests/wl_gui_tests" --gtest_filter="${GUI_TESTS:-StorySweep*.*:SweepView.*}" \
  > "$OUT/gui_tests.log" 2>&1
echo "exit $?" >> "$OUT/gui_tests.log"
cp "$OUT"/variants.*.json "$RESULTS/"
tar czf "$RESULTS/variants.tgz" -C "$OUT" .
echo "== gui tests"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|^exit" "$OUT/gui_tests.log"
echo "== modes the stories ran in"
grep -ho '"mode": "[^"(]*' /tmp/warplens-gui-Story*/*.json 2>/dev/null | sort | uniq -c
