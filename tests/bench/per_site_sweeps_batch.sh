#!/usr/bin/env bash
# Per-site sweeps and the counters' cost per range on the GPU machine, in one call: the gpu tests,
# the Source panel's stories with a real worker, `wl_bench range-cost` (what a shape's counters
# cost per metric list), and per-site sweeps (a parameter sweep in this process, a block sweep
# through a worker), each with its CSV and JSON. A summary is printed last; the logs, CSV and JSON
# go in one tarball. Run from the repository root with .gpu-run and .gl carried
# (tests/bench/carry.sh). `tests/bench/per_site_sweeps_batch.sh record` makes the model mode's
# recording (assets/recordings/h100.json) instead.
set -uo pipefail
source tests/bench/batch_setup.sh
BENCH=.gpu-run/bin/wl_bench
if [ "${1:-}" = record ]; then
  batch_setup record
  start=$(date +%s)
  "$BENCH" record "$RESULTS/h100.json" > "$OUT/record.log" 2>&1
  echo "exit $? after $(( $(date +%s) - start )) s" >> "$OUT/record.log"
  tar czf "$RESULTS/record.tgz" -C "$OUT" .
  tail -40 "$OUT/record.log"
  exit 0
fi
batch_setup per-site-sweeps
GUI_TESTS='StorySource*.*' run_gpu_and_sweep_tests
"$BENCH" range-cost > "$OUT/range_cost.txt" 2>&1
"$WL" sweep coalescing/stride --param-range stride=1,2,4,8,16,32 --metrics default --per-site \
  --csv "$OUT/stride.csv" --json "$OUT/stride.json" > "$OUT/stride.txt" 2>&1
echo "exit $?" >> "$OUT/stride.txt"
"$WL" sweep bank_conflicts/stride --param-range stride=1,2,4,8,16,32 --per-site --workers 1 \
  --csv "$OUT/banks.csv" --json "$OUT/banks.json" > "$OUT/banks.txt" 2>&1
echo "exit $?" >> "$OUT/banks.txt"
"$WL" sweep vec_add/scalar --block 32:1024:32 --metrics default > "$OUT/plain_sweep.txt" 2>&1
"$WL" sweep vec_add/scalar --block 32:1024:32 --metrics default --per-site > "$OUT/site_sweep.txt" 2>&1
tar czf "$RESULTS/per_site_sweeps.tgz" -C "$OUT" .
print_test_results
echo "== wl_bench range-cost"; cat "$OUT/range_cost.txt"
echo "== sweep coalescing/stride --per-site (this process)"; cat "$OUT/stride.txt"
echo "== sweep bank_conflicts/stride --per-site --workers 1"; cat "$OUT/banks.txt"
echo "== vec_add/scalar 32 shapes, without and with --per-site"
tail -2 "$OUT/plain_sweep.txt"; tail -2 "$OUT/site_sweep.txt"
