#!/usr/bin/env bash
# One call on the GPU machine for sweeps: the gpu tests, the sweep stories on the NVIDIA EGL device
# with a real worker, the lessons' parameter sweeps measured from the command line (their JSON and
# CSV), a parameter sweep measured through the GUI's worker; everything in $OUT/sweeps.tgz (the
# device tool brings back 8 files at most), a short table last.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
source "$(dirname "$0")/batch_setup.sh"
batch_setup sweeps
run_gpu_and_sweep_tests

# The lessons' charts, each the command a reader can run.
sweep() { # NAME ARGS...
  local name=$1; shift
  /usr/bin/time -f "%e s wall" "$WL" sweep "$@" --metrics default --json "$OUT/$name.json" \
    --csv "$OUT/$name.csv" > "$OUT/$name.txt" 2> "$OUT/$name.err"
  echo "exit $?" >> "$OUT/$name.err"
}
sweep stride coalescing/stride --block 256 --param-range stride=1:32:1
sweep pad bank_conflicts/padded --block 256 --param-range pad=0:32:1
sweep stride_blocks coalescing/stride --block-x 64,128,256,512 --param-range stride=1,2,4,8,16,32

# The same kind of sweep through the GUI: Measure sweep goes to the worker with the parameter axis.
cat > /tmp/measured_param_sweep.txt <<'EOF'
window 1280x720
click "coalescing/stride"
wait
click "Sweep"
set "block x" "256" in "Sweep"
click "parameter" in "Sweep"
click "stride" in "Sweep"
set "values" "1,2,4,8,16,32" in "Sweep"
click "Measure sweep"
wait
click "figure" in "Sweep"
click "sectors per request"
screenshot measured-stride.png sweep
EOF
(cd "$OUT" && HOME=/tmp/gui-home "$OLDPWD/$WL" --headless --script /tmp/measured_param_sweep.txt \
  > gui_sweep.log 2>&1; echo "exit $?" >> gui_sweep.log)

tar czf "$RESULTS/sweeps.tgz" -C "$OUT" .

print_test_results
echo "== gui measured sweep"; tail -3 "$OUT/gui_sweep.log"
python3 - "$OUT/measured-stride.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))["shown"]["sweep"]
print({k: s.get(k) for k in ("origin", "points", "allowed", "measured", "axes", "problem")})
EOF
for name in stride pad stride_blocks; do
  echo "== $name: $(grep -E 'set-up|exit|wall' "$OUT/$name.err" | tr '\n' ' ' | cut -c1-400)"
done
python3 - "$OUT" <<'EOF'
import csv, sys
out = sys.argv[1]
def rows(name):
    return list(csv.DictReader(open(f"{out}/{name}.csv")))
def ratio(r, num, den):
    try:
        return float(r[num]) / float(r[den])
    except (KeyError, ValueError, ZeroDivisionError):
        return float("nan")
# The default set counts instructions; on the H100 a global or shared load instruction is one request.
LD_S, LD_R = "global_load_sectors", "global_load_instructions"
SH_W, SH_R = "shared_load_wavefronts", "shared_load_instructions"
print("\nstride  ms       GB/s    load sectors/request measured  predicted  verified")
for r in rows("stride"):
    print(f"{r['stride']:>6}  {r['median_time']:>7}  {r['throughput']:>7}  {ratio(r, LD_S, LD_R):>30.2f}  "
          f"{ratio(r, 'predicted_global_load_sectors', 'predicted_global_load_instructions'):>9.2f}  {r['verified']}")
print("\npad  ms       load wavefronts/request measured  predicted  verified")
for r in rows("pad"):
    print(f"{r['pad']:>3}  {r['median_time']:>7}  {ratio(r, SH_W, SH_R):>32.2f}  "
          f"{ratio(r, 'predicted_shared_load_wavefronts', 'predicted_shared_load_instructions'):>9.2f}  {r['verified']}")
print("\nstride x block: points", len(rows("stride_blocks")),
      "verified", sum(r["verified"] == "yes" for r in rows("stride_blocks")))
EOF
