#!/usr/bin/env bash
# Per-line measured figures of kernel files beside Nsight Compute's source page, in one call on
# the GPU machine: each example run with `--per-site` (WarpLens's per-line pass) and profiled by
# ncu (SourceCounters, the CUDA source view: its per-line sums), then a table of both per line.
# Run from the repository root with .gpu-run and .gl carried (tests/bench/carry.sh).
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup lines
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for kernel in saxpy transpose stencil_2d histogram; do
  file=examples/$kernel.cu
  "$WL" run "$file" --metrics default --per-site --json > "$OUT/$kernel.lines.json" 2> "$OUT/$kernel.lines.err"
  "$WL" run "$file" --per-site > "$OUT/$kernel.lines.txt" 2>&1
  # The kernel's first launch (no reference runs with --no-verify): each CUDA line of the file
  # with its SASS instructions under it and their counters, as ncu correlates them.
  "$NCU" --section SourceCounters --page source --csv --print-source cuda,sass -k "regex:^$kernel\$" \
    -c 1 "$WL" run "$file" --no-verify > "$OUT/$kernel.ncu.csv" 2> "$OUT/$kernel.ncu.err"
done
python3 "$(dirname "$0")/lines_summary.py" "$OUT" > "$OUT/summary.txt" 2>&1
tar czf "$RESULTS/lines.tgz" -C "$OUT" .
cat "$OUT/summary.txt"
echo "== warplens run examples/transpose.cu --per-site"; tail -14 "$OUT/transpose.lines.txt"
