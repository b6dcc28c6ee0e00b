#!/usr/bin/env bash
# The classroom on the GPU machine, in one call: a recording of kernel files a lab makes once
# (`warplens record FILE.cu ...`, which every laptop then replays with --recording), a learner's
# finished copies (tests/bench/class: the five bundled exercises and a teacher's lesson, both
# written by people following the README) judged first with the models and then on this GPU
# (`warplens lesson try [--measured]`), the report a teacher reads with both, then the gpu tests.
# Here first: BINS="warplens wl_gpu_tests wl_gui_tests wl_fault_proxy wl_fault_worker"
# tests/bench/carry.sh; carry .gpu-run, .gl. Logs, settings and the recording in $OUT/class.tgz.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup class

step() { # NAME COMMAND...: its output and exit code in $OUT/NAME.txt
  local name=$1
  shift
  local start
  start=$(date +%s.%N)
  "$@" > "$OUT/$name.txt" 2>&1
  echo "exit $? in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" \
    >> "$OUT/$name.txt"
}

step record "$WL" record examples/saxpy.cu examples/transpose.cu --out "$OUT/files.json"
# A teacher's lesson is known by its whole path: the same one as the learner's progress names.
rm -rf /tmp/class && mkdir -p /tmp/class && cp -r tests/bench/class/teacher /tmp/class/teacher
cp -r tests/bench/class/learner /tmp/class/learner-ex
export WARPLENS_EXERCISES=/tmp/class/learner-ex XDG_CONFIG_HOME=/tmp/class/config
for how in models measured; do
  flag=$([[ $how == measured ]] && echo --measured)
  step "${how}_exercises" "$WL" lesson try exercises $flag
  step "${how}_teacher" "$WL" lesson try /tmp/class/teacher/my-exercise.lesson $flag
done
step report_csv "$WL" lesson report --csv
step report_text "$WL" lesson report
cp "$XDG_CONFIG_HOME/warplens/settings.json" "$OUT/settings.json"
unset WARPLENS_EXERCISES XDG_CONFIG_HOME
"$BUILD/tests/wl_gpu_tests" > "$OUT/gpu_tests.log" 2>&1
echo "exit $?" >> "$OUT/gpu_tests.log"

tar czf "$RESULTS/class.tgz" -C "$OUT" .
cp "$OUT/files.json" "$RESULTS/files.json"
for name in record models_exercises models_teacher measured_exercises measured_teacher report_text; do
  echo "== $name"; tail -3 "$OUT/$name.txt"
done
echo "== report_csv"; grep -E "exercises|my-exercise|exit" "$OUT/report_csv.txt"
echo "== gpu tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gpu_tests.log"
