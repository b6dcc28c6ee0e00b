#!/usr/bin/env bash
# The optimisation ladders on the GPU machine, in one call: the catalog's correctness sweep, every
# matmul rung at 4096^3 (each blocking of the tunable rungs too) beside cuBLAS and torch's fp32
# matmul (TF32 off) timed in the same call, the per-site pass of the register-blocked rungs, and
# compute-sanitizer over them. A table last; logs and JSON in $OUT/ladder.tgz.
# Here first: BUILD=build/ci tests/bench/carry.sh; carry .gpu-run and .gl. Knobs: GPU_TESTS (a
# gtest filter of the gpu tests, KernelCatalog.* unless given), SWEPT (the rungs whose blockings
# are swept), TIMINGS_ONLY=1 and ALL_SITES=1 (below).
set -uo pipefail
source "$(dirname "$0")/batch_setup.sh"
batch_setup ladder
cp .gpu-run/bin/wl_bench "$BUILD/tests/bench/"
# TIMINGS_ONLY=1 leaves out the tests, the per-site pass and compute-sanitizer: a tuning round.
if [[ -z "${TIMINGS_ONLY:-}" ]]; then
  "$BUILD/tests/wl_gpu_tests" --gtest_filter="${GPU_TESTS:-KernelCatalog.*}" > "$OUT/gpu_tests.log" 2>&1
  echo "exit $?" >> "$OUT/gpu_tests.log"
fi

python3 tests/bench/torch_peers.py > "$OUT/torch.json" 2> "$OUT/torch.err"
run() { # NAME ARGS...: warplens run ARGS --json into NAME.json
  local name=$1; shift
  "$WL" run "$@" --json > "$OUT/$name.json" 2> "$OUT/$name.err"
}
rungs="naive tiled blocktile_1d blocktile_2d vectorized warptile double_buffered async_copy cublas"
for rung in $rungs; do run "time.$rung" "matmul/$rung"; done
# Every blocking of the tunable rungs: a sweep over the product of each blocking parameter's
# values (the combinations not built are listed as refused), its block among the rung's presets.
sweep_blockings() { # RUNG
  local ranges
  ranges=$("$WL" list --json | python3 -c '
import json, sys
for k in json.load(sys.stdin):
    if k["id"] == sys.argv[1]:
        print(" ".join("--param-range %s=%s" % (p["name"], ",".join(map(str, p["choices"])))
                       for p in k["params"] if len(p.get("choices", [])) > 1))
        print("--block " + ",".join(b.split("x")[0] for b in k["block_presets"]))' "matmul/$1")
  # shellcheck disable=SC2086
  "$WL" sweep "matmul/$1" $ranges --max-time 0.3 --json "$OUT/sweep.$1.json" \
    > "$OUT/sweep.$1.txt" 2>&1
}
for rung in ${SWEPT:-blocktile_1d blocktile_2d vectorized warptile double_buffered async_copy}; do
  sweep_blockings "$rung"
done
# DRAM traffic of the launch order: one row of block tiles at a time against the default group.
for group in 1 8; do
  run "dram.group$group" matmul/double_buffered --param "group=$group" --metrics default
done
if [[ -z "${TIMINGS_ONLY:-}" ]]; then
  for rung in blocktile_1d blocktile_2d vectorized warptile double_buffered async_copy; do
    run "site.$rung" "matmul/$rung" --size 1024x1024x1024 --per-site
  done
  ONLY='^matmul/(blocktile|vectorized|warptile|double|async)' DEADLINE=${SANITIZE_DEADLINE:-200} \
    tests/bench/sanitize_catalog.sh "$BUILD/tests/bench/wl_bench" "$OUT/sanitize" > "$OUT/sanitize.md" 2>&1
fi
# ALL_SITES=1: every bundled kernel's per-site pass at its default launch, beside the model.
if [[ -n "${ALL_SITES:-}" ]]; then
  for id in $("$WL" list | awk '/^[a-z_0-9]+\/[a-z_0-9]+ / {print $1}' | grep -v cublas); do
    "$WL" run "$id" --per-site --json > "$OUT/all_sites.${id//\//_}.json" 2> /dev/null
  done
fi
python3 tests/bench/ladder_summary.py "$OUT" > "$OUT/summary.txt" 2>&1
tar czf "$RESULTS/ladder.tgz" -C "$OUT" .
echo "== gpu tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit|kernels, " "$OUT/gpu_tests.log" | tail -20
echo "== compute-sanitizer"; cat "$OUT/sanitize.md"
cat "$OUT/summary.txt"
