#!/usr/bin/env bash
# One call on the GPU machine for what an idle or a live session costs: `warplens worker` left
# alone for 60 s after a measured Run (tests/bench/idle_batch.sh worker), the live-edit benchmark
# five times against its bars (median under 33 ms, worst under 50 ms, no frame over 16.7 ms), and
# the story that walks every pair of families through the Launch tree with a real worker. Logs in
# $OUT/quiet.tgz, a table last. Here first: build, then BUILD=build/ci tests/bench/carry.sh; carry
# .gpu-run and .gl; on the machine BUILD=build/ci tests/bench/quiet_batch.sh.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup quiet
cp .gpu-run/bin/wl_live_gui "$BUILD/tests/bench/"

WL="$WL" COUNTER=/nonexistent tests/bench/idle_batch.sh worker 60 > "$OUT/idle.txt" 2>&1

for run in 1 2 3 4 5; do
  "$BUILD/tests/bench/wl_live_gui" "$WL" > "$OUT/live_$run.txt" 2>&1
done

"$BUILD/tests/wl_gui_tests" --gtest_filter='StoryLaunch.SwitchingBetweenEveryPair*:StoryBaseline.*' \
  > "$OUT/story.log" 2>&1
echo "exit $?" >> "$OUT/story.log"
mkdir -p "$OUT/stories"
for story in /tmp/warplens-gui-Story*; do # the sidecars and the script's own output
  [ -d "$story" ] && mkdir -p "$OUT/stories/${story##*/}" &&
    cp "$story"/*.json "$story"/*.txt "$OUT/stories/${story##*/}/" 2>/dev/null
done
tar czf "$RESULTS/quiet.tgz" -C "$OUT" .
echo "== idle"; cat "$OUT/idle.txt"
echo "== live (bars: median < 33 ms, worst < 50 ms, longest frame < 16.7 ms)"
for run in 1 2 3 4 5; do
  awk -v run="$run" '/live change to new measurement shown/ { split($0, f, "|"); m = f[3]; w = f[4] }
    /longest frame while measuring/ { split($0, f, "|"); l = f[4] }
    END { ok = (m + 0 < 33 && w + 0 < 50 && l + 0 < 16.7) ? "ok" : "MISSED";
          printf "run %s: median %s ms, worst %s ms, longest frame %s ms: %s\n", run, m, w, l, ok }' \
    "$OUT/live_$run.txt"
done
echo "== stories"; grep -E "^\[  (PASSED|FAILED) |^exit|cannot|did not" "$OUT/story.log" | head -20
