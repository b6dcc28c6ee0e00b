#!/usr/bin/env bash
# One call on the GPU machine for what a person meets with a real worker: the first measured
# figures three times for a bundled kernel and for a kernel file, the live edits, a worker killed
# mid-Run and the warm sweep (wl_live_gui), every GUI test (or the shares SHARD of SHARDS,
# gtest's sharding), then the gpu tests: last, because their deliberate faults disturb a later
# process's headless OpenGL context. Logs in $RESULTS/acceptance.tgz, tables last.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
# PARTS (gui,first,live,gpu; breakdown: where a first Run's time goes; timed: the Counters panel
# pictured while a first Run's counters are measured, then settled) chooses the parts.
set -uo pipefail
source "$(dirname "$0")/batch_setup.sh"
batch_setup acceptance
cp .gpu-run/bin/wl_live_gui .gpu-run/bin/wl_bench "$BUILD/tests/bench/"
export PATH="$PATH:/usr/local/cuda/bin"
PARTS=${PARTS:-gui,first,live,gpu}
has_part() { [[ ",$PARTS," == *",$1,"* ]]; }


# From the process's start to its first measured figures on screen, as the GUI notes it (the frame
# that first drew a figure measured now: the Run's timed part), and to its whole Run's picture: a
# script that waits for the launch's Run (its timing and the default counters) and then saves the
# window; the picture's time of writing ends that span (its encoding included, the exit not).
ms_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }
first_figures() { # LABEL ARGS...
  local label=$1; shift
  printf 'wait\nscreenshot %s/%s.png\n' "$OUT" "$label" > "$OUT/$label.script"
  local start; start=$(date +%s.%N)
  HOME=/tmp/gui-home timeout 60 "$WL" --headless "$@" --script "$OUT/$label.script" \
    > "$OUT/$label.log" 2>&1
  local rc=$?
  local shown; shown=$(stat -c %.9Y "$OUT/$label.png" 2>/dev/null || echo "$start")
  local mode; mode=$(grep -o '"mode": *"[^"]*"' "$OUT/$label.json" 2>/dev/null | head -1)
  local first; first=$(grep -o '"first_measured_figures_seconds": *[0-9.e-]*' "$OUT/$label.json" \
    2>/dev/null | head -1 | awk '{ printf "%.0f", $2 * 1000 }')
  printf '| %s | %s | %s | %s | %s |\n' "$label" "$rc" "${first:-none}" \
    "$(ms_between "$start" "$shown")" "$mode"
}
if has_part first; then
  mkdir -p /tmp/gui-home
  {
    echo "| session | exit | first measured figures drawn (ms) | whole Run pictured (ms) | sidecar |"
    echo "|---|---|---|---|---|"
    for i in 1 2 3; do first_figures "bundled_$i" --kernel vec_add/scalar; done
    for i in 1 2 3; do first_figures "file_$i" --kernel-file examples/saxpy.cu; done
    for i in 1 2 3; do
      start=$(date +%s.%N)
      "$WL" run vec_add/scalar > "$OUT/cli_run_$i.log" 2>&1
      rc=$?
      printf '| cli run %s | %s | | %s | whole process |\n' "$i" "$rc" "$(ms_between "$start" "$(date +%s.%N)")"
    done
  } > "$OUT/first_figures.md"
fi

# Where a first Run's time goes in one process: the session's set-up (context, inputs, reference,
# upload, the counter profiler) and each pass, as `sweep` reports them on stderr.
if has_part breakdown; then
  for i in 1 2; do
    "$WL" sweep vec_add/scalar --block 256 --metrics default > "$OUT/breakdown_$i.txt" \
      2> "$OUT/breakdown_$i.err"
    echo "exit $?" >> "$OUT/breakdown_$i.err"
  done
fi

if has_part live; then
  for i in 1 2 3; do
    timeout 150 "$BUILD/tests/bench/wl_live_gui" "$WL" vec_add/scalar > "$OUT/live_$i.md" 2>&1
    echo "exit $?" >> "$OUT/live_$i.md"
  done
fi

# A first Run of matmul/tiled pictured after each sleep (one lands between its timed part and its
# answer), then once settled: the Counters panel says its counters come, then shows them.
if has_part timed; then
  mkdir -p /tmp/gui-home
  for s in 0.9 1.2 1.5; do
    printf 'sleep %s\nscreenshot %s/timed_%s.png counters\nwait\nscreenshot %s/settled_%s.png counters\n' \
      "$s" "$OUT" "$s" "$OUT" "$s" > "$OUT/timed_$s.script"
    HOME=/tmp/gui-home timeout 60 "$WL" --headless --kernel matmul/tiled --script "$OUT/timed_$s.script" \
      > "$OUT/timed_$s.log" 2>&1
    echo "exit $?" >> "$OUT/timed_$s.log"
  done
fi

if has_part gui; then
  for shard in ${SHARD:-0}; do # SHARD: one index or several, each with GUI_SECONDS of its own
    GTEST_TOTAL_SHARDS=${SHARDS:-1} GTEST_SHARD_INDEX=$shard timeout "${GUI_SECONDS:-420}" \
      "$BUILD/tests/wl_gui_tests" --gtest_filter="${GUI_TESTS:-*}" >> "$OUT/gui_tests.log" 2>&1
    echo "exit $? (shard $shard of ${SHARDS:-1})" >> "$OUT/gui_tests.log"
  done
  # A shard stopped at its time limit leaves its stories' workers running, and a worker that
  # holds the profiler makes every counter test after it fail (CUPTI_ERROR_HARDWARE_BUSY).
  pkill -f "warplens worker" && sleep 1
fi

if has_part gpu; then
  timeout "${GPU_SECONDS:-240}" "$BUILD/tests/wl_gpu_tests" --gtest_filter="${GPU_TESTS:-*}" \
    > "$OUT/gpu_tests.log" 2>&1
  echo "exit $?" >> "$OUT/gpu_tests.log"
fi

tar czf "$RESULTS/acceptance.tgz" -C "$OUT" .
if has_part gui; then
  echo "== gui tests (shard ${SHARD:-0} of ${SHARDS:-1})"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^\[  SKIPPED \]|^exit" "$OUT/gui_tests.log" | head -60
  echo "== modes the stories ran in"
  grep -ho '"mode": "[^"]*' /tmp/warplens-gui-Story*/*.json 2>/dev/null | sort | uniq -c | cut -c1-160
fi
if has_part gpu; then
  echo "== gpu tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gpu_tests.log"
fi
if has_part live; then
  for i in 1 2 3; do
    echo "== live, worker killed, warm sweep: run $i"
    grep -E "^first measured figures|^first full Run|^\| live change|^\| longest frame|^worker .* killed|^after the kill|^warm sweep|^exit" "$OUT/live_$i.md"
  done
fi
if has_part first; then echo "== first figures"; cat "$OUT/first_figures.md"; fi
if has_part timed; then
  echo "== timed part pictures"
  for s in 0.9 1.2 1.5; do
    printf '%s: %s; Counters panel then: %s\n' "$s" "$(tail -1 "$OUT/timed_$s.log")" \
      "$(grep -o 'Measuring this run.s counters' "$OUT/timed_$s.json" 2>/dev/null | head -1)"
  done
fi
if has_part breakdown; then echo "== a first Run's time, in one process"; cat "$OUT"/breakdown_*.err; fi
