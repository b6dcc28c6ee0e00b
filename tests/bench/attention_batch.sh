#!/usr/bin/env bash
# The flash attention climb on the GPU machine, in one call: every test size x block of the
# tensor-core variants verified (wl_bench shapes), each variant at its default shape timed beside
# torch's scaled_dot_product_attention in FP32 (torch_peers.py, same call), the per-site pass at a
# small shape, and compute-sanitizer over the tensor-core variants (SANITIZE=0 leaves it out).
# Short table last; logs in $OUT/attention.tgz. Here first: BUILD=build/ci tests/bench/carry.sh;
# carry .gpu-run and .gl.
set -uo pipefail
source "$(dirname "$0")/batch_setup.sh"
batch_setup attention
cp .gpu-run/bin/wl_bench "$BUILD/tests/bench/"
BENCH="$BUILD/tests/bench/wl_bench"
variants="d64 d128 tensor_d64 tensor_d128"
for v in tensor_d64 tensor_d128; do
  "$BENCH" shapes "flash_attention/$v" > "$OUT/shapes.$v.md" 2>&1
done
python3 tests/bench/torch_peers.py > "$OUT/torch.json" 2> "$OUT/torch.err"
for v in $variants; do
  "$WL" run "flash_attention/$v" --json > "$OUT/run.$v.json" 2> "$OUT/run.$v.err"
done
for v in tensor_d64 tensor_d128; do
  "$WL" run "flash_attention/$v" --param seq=200 --param heads=2 --per-site --json \
    > "$OUT/site.$v.json" 2> "$OUT/site.$v.err"
done
if [[ ${SANITIZE:-1} != 0 ]]; then
  ONLY="flash_attention/tensor" DEADLINE=${SANITIZE_DEADLINE:-200} \
    tests/bench/sanitize_catalog.sh "$BENCH" "$OUT/sanitize" > "$OUT/sanitize.md" 2>&1
fi
python3 tests/bench/attention_summary.py "$OUT" > "$OUT/summary.txt" 2>&1
tar czf "$RESULTS/attention.tgz" -C "$OUT" .
for v in tensor_d64 tensor_d128; do echo "== shapes $v"; tail -4 "$OUT/shapes.$v.md"; done
[[ -f "$OUT/sanitize.md" ]] && { echo "== compute-sanitizer"; cat "$OUT/sanitize.md"; }
cat "$OUT/summary.txt"
