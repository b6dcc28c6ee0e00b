#!/usr/bin/env bash
# Tuning on the GPU machine: for each target, `warplens tune --strategy grid` (every allowed
# point: the truth), `--strategy model` (a quarter of the points unless BUDGET says) and
# `--strategy random` with the same budget and three seeds, each with a cache of its own; then a
# grid tune killed midway and run again on the same cache, a cache of another kernel offered to a
# tune, and `--apply` on a copy of examples/transpose.cu. tune_summary.py reads the JSON each
# printed and judges every winner by the grid's time for the same point. Logs in
# $RESULTS/tune.tgz, the table last.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup tune
export WARPLENS_ASSETS="$PWD/assets"
# A person's stencil before tuning: examples/stencil_2d.cu with a poor default block (8x4).
mkdir -p "$OUT/untuned"
sed 's|^// @warplens block 32x8$|// @warplens block 8x4|' examples/stencil_2d.cu > "$OUT/untuned/stencil_2d.cu"
# TARGETS: kernels and files; the word "untuned" stands for that stencil.
TARGETS=${TARGETS:-"matmul/async_copy examples/transpose.cu examples/stencil_2d.cu untuned"}
TARGETS=${TARGETS//untuned/$OUT/untuned/stencil_2d.cu}

# The target's grid: stencil_2d's default 2D blocks are 45 points; these are over 200.
grid_of() {
  case "$1" in
    *stencil_2d.cu) echo "--block-x 2:64:2 --block-y 2:32:2" ;;
    *) echo "" ;;
  esac
}

tune() { # NAME TARGET ARGS...: one tune, its JSON and log kept, its exit code in the log
  local name=$1 target=$2
  shift 2
  timeout 300 "$WL" tune "$target" $(grid_of "$target") --json --top 3 --cache "$OUT/$name.jsonl" \
    "$@" > "$OUT/$name.json" 2> "$OUT/$name.log"
  echo "exit $?" >> "$OUT/$name.log"
}

for target in $TARGETS; do
  t=$(echo "${target#"$OUT"/}" | tr '/:=.' '____')
  tune "${t}_grid" "$target" --strategy grid
  tune "${t}_model" "$target" --strategy model ${BUDGET:+--budget $BUDGET}
  budget=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["evaluations"]))' \
    "$OUT/${t}_model.json" 2>/dev/null || echo 1)
  for seed in 1 2 3; do
    tune "${t}_random$seed" "$target" --strategy random --budget "$budget" --search-seed "$seed"
  done
done

# Killed midway (SIGKILL once 100 points are in its cache), then run again on the same cache.
"$WL" tune examples/stencil_2d.cu $(grid_of examples/stencil_2d.cu) \
  --strategy grid --cache "$OUT/killed.jsonl" > /dev/null 2> "$OUT/killed_first.log" &
pid=$!
for _ in $(seq 600); do
  [[ -f "$OUT/killed.jsonl" && $(wc -l < "$OUT/killed.jsonl") -gt 100 ]] && break
  sleep 0.05
done
kill -KILL "$pid"
wait "$pid"
echo "exit $? (137: killed)" >> "$OUT/killed_first.log"
lines_after_kill=$(wc -l < "$OUT/killed.jsonl")
timeout 300 "$WL" tune examples/stencil_2d.cu $(grid_of examples/stencil_2d.cu) --strategy grid \
  --cache "$OUT/killed.jsonl" --json > "$OUT/killed_again.json" 2> "$OUT/killed_again.log"
echo "exit $?" >> "$OUT/killed_again.log"
echo "killed: $lines_after_kill lines after the kill, $(wc -l < "$OUT/killed.jsonl") after the rerun" \
  > "$OUT/killed.txt"
# The stencil's cache offered to another kernel, and to the same kernel measured otherwise.
timeout 60 "$WL" tune examples/transpose.cu --cache "$OUT/killed.jsonl" > /dev/null \
  2> "$OUT/foreign.log"
echo "exit $?" >> "$OUT/foreign.log"
timeout 60 "$WL" tune examples/stencil_2d.cu --objective energy --cache "$OUT/killed.jsonl" \
  > /dev/null 2>> "$OUT/foreign.log"
echo "exit $?" >> "$OUT/foreign.log"
# --apply on a copy of transpose.cu: the file before and after.
mkdir -p "$OUT/apply" && cp examples/transpose.cu "$OUT/apply/transpose.cu"
timeout 120 "$WL" tune "$OUT/apply/transpose.cu" --strategy model --apply --no-cache \
  > "$OUT/apply.log" 2>&1
echo "exit $?" >> "$OUT/apply.log"
diff examples/transpose.cu "$OUT/apply/transpose.cu" >> "$OUT/apply.log"

tar -czf "$RESULTS/tune.tgz" -C "$OUT" .
python3 tests/bench/tune_summary.py "$OUT"
