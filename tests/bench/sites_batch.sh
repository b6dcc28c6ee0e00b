#!/usr/bin/env bash
# Per-site measured counters on the GPU machine, in one call: the gpu tests, then every bundled
# kernel at its defaults run twice, `--metrics default` and `--metrics default --per-site` (each
# run's wall time: the per-site pass's cost), and Nsight Compute's source page (per-instruction
# counters) for five kernels beside WarpLens's per-instruction values. A summary table is printed
# last; the logs and JSON go in one tarball. Run from the repository root with .gpu-run and .gl
# carried (tests/bench/carry.sh).
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup sites
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
BENCH=.gpu-run/bin/wl_bench
# SASS passes in turn in one process, and the pass's cost per metric list.
"$BENCH" sass-repeat vec_add/scalar > "$OUT/sass_repeat.txt" 2>&1
for id in matmul/tiled matmul/naive; do
  for list in site six kinds; do "$BENCH" sass-cost "$id" $list >> "$OUT/sass_cost.txt" 2>&1; done
done
"$BUILD/tests/wl_gpu_tests" > "$OUT/gpu_tests.log" 2>&1; echo "exit $?" >> "$OUT/gpu_tests.log"
# The Source panel's stories on the EGL device, with a real worker where they start one.
"$BUILD/tests/wl_gui_tests" --gtest_filter='StorySource*.*:GuiLaunch.*' > "$OUT/gui_tests.log" 2>&1
echo "exit $?" >> "$OUT/gui_tests.log"

wall() { # seconds of one command, its stdout to $1
  local file=$1; shift
  python3 -c '
import subprocess, sys, time
t = time.time()
subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], "w"), stderr=subprocess.STDOUT)
print("%.3f" % (time.time() - t))' "$file" "$@"
}

"$WL" list --json > "$OUT/kernels.json"
ids=$(python3 -c 'import json,sys; print(" ".join(k["id"] for k in json.load(open(sys.argv[1])) if k["id"] != "matmul/cublas"))' "$OUT/kernels.json" 2>/dev/null ||
      "$WL" list | grep -E '^[a-z_0-9]+/[a-z_0-9]+ ' | awk '{print $1}' | grep -v cublas)
for id in $ids; do
  name=${id//\//_}
  echo "$id $(wall "$OUT/$name.default.json" "$WL" run "$id" --metrics default --json) $(wall "$OUT/$name.site.json" "$WL" run "$id" --metrics default --per-site --json) $(wall "$OUT/$name.site_only.json" "$WL" run "$id" --per-site --json)" >> "$OUT/costs.txt"
done

# Nsight Compute's source page for five kernels: the first launch of each (the verified run).
for pair in vec_add/scalar:vec_add_scalar transpose/smem:transpose_smem matmul/tiled:matmul_tiled \
            reduce_sum/sequential:reduce_sum_sequential bank_conflicts/stride:bank_conflicts_stride; do
  id=${pair%%:*}; fn=${pair##*:}; name=${id//\//_}
  "$NCU" --section SourceCounters --page source --csv --print-source sass -k "regex:$fn" -c 1 \
    "$WL" run "$id" --no-verify > "$OUT/$name.ncu.csv" 2> "$OUT/$name.ncu.err"
done
command -v nvdisasm cuobjdump > "$OUT/disassemblers.txt" 2>&1
# nvdisasm's listing of one embedded cubin, as the build would embed it where it has nvdisasm.
"$WL" run matmul/tiled --per-site > "$OUT/matmul_tiled.per_site.txt" 2>&1
/usr/local/cuda/bin/nvdisasm -c -g .gpu-run/vec_add.sm_90.cubin > "$OUT/vec_add.nvdisasm.txt" 2>&1
python3 "$(dirname "$0")/sites_summary.py" "$OUT" > "$OUT/summary.txt" 2>&1
tar czf "$RESULTS/sites.tgz" -C "$OUT" .
echo "== gpu tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gpu_tests.log"
echo "== gui tests (Source stories, launch state)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gui_tests.log"
echo "== SASS passes in turn"; cat "$OUT/sass_repeat.txt"
echo "== SASS pass cost"; cat "$OUT/sass_cost.txt"
cat "$OUT/summary.txt"
echo "== warplens run matmul/tiled --per-site"; tail -16 "$OUT/matmul_tiled.per_site.txt"
echo "== nvdisasm -c -g of vec_add's cubin"; head -30 "$OUT/vec_add.nvdisasm.txt"
