#!/usr/bin/env bash
# The memory-bound ladders on the GPU machine, in one call: every softmax variant at its short-row,
# square and long-row shapes beside torch.softmax; the reduce_sum and transpose variants at their
# default sizes beside the device-to-device copy bandwidth (wl_bench copy) and torch, all timed in
# the same call; the per-site pass of the climb's new variants. A table last; logs and JSON in
# $OUT/memory_ladder.tgz.
# Here first: BUILD=build/ci tests/bench/carry.sh; carry .gpu-run and .gl. Knobs: GPU_TESTS (a
# gtest filter of the gpu tests run first; none unless given), SOFTMAX_SWEPT (the softmax variants
# also timed at each block of SOFTMAX_BLOCKS), REDUCE_CHUNKS (reduce_sum/warp_shuffle's chunks also
# timed, beside vectorized's), REDUCE_BLOCKS (vectorized's blocks also timed), SITES (ID:SIZE,
# the per-site passes), SANITIZE (a regex of the ids compute-sanitizer checks; none unless given).
set -uo pipefail
source "$(dirname "$0")/batch_setup.sh"
batch_setup memory_ladder
cp .gpu-run/bin/wl_bench "$BUILD/tests/bench/"
if [[ -n "${GPU_TESTS:-}" ]]; then
  "$BUILD/tests/wl_gpu_tests" --gtest_filter="$GPU_TESTS" > "$OUT/gpu_tests.log" 2>&1
  echo "exit $?" >> "$OUT/gpu_tests.log"
fi

python3 tests/bench/torch_peers.py > "$OUT/torch.json" 2> "$OUT/torch.err"
"$BUILD/tests/bench/wl_bench" copy > "$OUT/copy.txt" 2>&1
# The copy of reduce_sum's default 16M floats: the same bytes read, and the same launch's fixed
# cost weighing on them.
"$BUILD/tests/bench/wl_bench" copy 16777216 > "$OUT/copy16M.txt" 2>&1
run() { # NAME ARGS...: warplens run ARGS --json into NAME.json
  local name=$1; shift
  "$WL" run "$@" --json > "$OUT/$name.json" 2> "$OUT/$name.err"
}
variants() { # FAMILY: the family's variant names
  "$WL" list | awk -v f="$1/" 'index($1, f) == 1 {print substr($1, length(f) + 1)}'
}
swept=" ${SOFTMAX_SWEPT:-warp_registers block_shared block_online} "
for v in $(variants softmax); do
  blocks=default
  [[ $swept == *" $v "* ]] && blocks="default ${SOFTMAX_BLOCKS:-128 256 512 1024}"
  for shape in 8192x8192 32768x1024 1024x32768; do
    for block in $blocks; do
      args=(--size "$shape")
      [[ $block != default ]] && args+=(--block "$block")
      run "softmax.$v.$shape.$block" "softmax/$v" "${args[@]}"
    done
  done
done
for v in $(variants reduce_sum); do run "reduce_sum.$v" "reduce_sum/$v"; done
for v in warp_shuffle vectorized; do
  for chunk in ${REDUCE_CHUNKS:-}; do
    run "reduce_sum.${v}_chunk$chunk" "reduce_sum/$v" --param "chunk=$chunk"
  done
  # As many floats as wl_bench copy moves: the same bytes read, without the launch's fixed cost
  # weighing on 64 MB.
  run "reduce_sum.${v}_n64M" "reduce_sum/$v" --param n=67108864
done
for block in ${REDUCE_BLOCKS:-}; do
  run "reduce_sum.vectorized_block$block" reduce_sum/vectorized --block "$block"
done
for v in $(variants transpose); do run "transpose.$v" "transpose/$v"; done
sites=${SITES:-softmax/warp_registers:1024x1024 softmax/block_shared:1024x1024
  softmax/block_online:1024x1024 reduce_sum/vectorized:1048576 transpose/in_flight:1024x1024}
for entry in $sites; do # ID:SIZE
  id=${entry%%:*}
  run "site.${id//\//_}" "$id" --size "${entry#*:}" --per-site
done
if [[ -n "${SANITIZE:-}" ]]; then
  ONLY="$SANITIZE" DEADLINE=${SANITIZE_DEADLINE:-150} \
    tests/bench/sanitize_catalog.sh "$BUILD/tests/bench/wl_bench" "$OUT/sanitize" > "$OUT/sanitize.md" 2>&1
fi
python3 tests/bench/memory_ladder_summary.py "$OUT" > "$OUT/summary.txt" 2>&1
tar czf "$RESULTS/memory_ladder.tgz" -C "$OUT" .
if [[ -f "$OUT/gpu_tests.log" ]]; then
  echo "== gpu tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gpu_tests.log" | tail -20
fi
[[ -f "$OUT/sanitize.md" ]] && { echo "== compute-sanitizer"; cat "$OUT/sanitize.md"; }
cat "$OUT/summary.txt"
