#!/usr/bin/env bash
# The classroom on the GPU machine, in one call: a recording of kernel files a lab makes once
# (`warplens record FILE.cu ...`, which every laptop then replays with --recording), a learner's
# finished copies judged on this GPU (`warplens lesson try --measured`, into the progress their
# model-mode tries left), the report a teacher reads, then the gpu tests. Here first:
# BINS="warplens wl_gpu_tests wl_gui_tests wl_fault_proxy wl_fault_worker" tests/bench/carry.sh,
# and the learner's copies, teacher's lesson and settings under .gpu-run/class (CLASS_FILES below);
# carry .gpu-run, .gl. Logs and the recording in $OUT/class.tgz.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup class
CLASS=.gpu-run/class

step() { # NAME COMMAND...: its output and exit code in $OUT/NAME.txt
  local name=$1
  shift
  local start=$(date +%s.%N)
  "$@" > "$OUT/$name.txt" 2>&1
  echo "exit $? in $(echo "$(date +%s.%N) - $start" | bc) s" >> "$OUT/$name.txt"
}

step record "$WL" record examples/saxpy.cu examples/transpose.cu --out "$OUT/files.json"
# The teacher's lesson where the learner's progress names it (a teacher's lesson is known by its
# whole path), the learner's copies and settings as they left them.
rm -rf /tmp/class && mkdir -p /tmp/class && cp -r "$CLASS/teacher" /tmp/class/teacher
export WARPLENS_EXERCISES=$PWD/$CLASS/learner-ex XDG_CONFIG_HOME=$PWD/$CLASS/learner-config
step measured_exercises "$WL" lesson try exercises --measured
step measured_teacher "$WL" lesson try /tmp/class/teacher/my-exercise.lesson --measured
step report_csv "$WL" lesson report --csv
step report_text "$WL" lesson report
cp "$XDG_CONFIG_HOME/warplens/settings.json" "$OUT/settings.json"
unset WARPLENS_EXERCISES XDG_CONFIG_HOME
"$BUILD/tests/wl_gpu_tests" > "$OUT/gpu_tests.log" 2>&1
echo "exit $?" >> "$OUT/gpu_tests.log"

tar czf "$RESULTS/class.tgz" -C "$OUT" .
cp "$OUT/files.json" "$RESULTS/files.json"
for name in record measured_exercises measured_teacher report_text; do
  echo "== $name"; tail -4 "$OUT/$name.txt"
done
echo "== report_csv"; grep -E "exercises|my-exercise|exit" "$OUT/report_csv.txt"
echo "== gpu tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gpu_tests.log"
