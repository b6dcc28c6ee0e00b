#!/usr/bin/env bash
# The course on the GPU machine, in one call: every question of every bundled lesson asked again
# of the H100's figures (`warplens lesson check --measured`: each step's launch run with counters
# and the per-site pass), then the GUI's stories with a real worker (the Lessons panel's among
# them: which source each verdict named is printed from their sidecars), then the gpu tests.
# Logs in $OUT/lessons.tgz. Here first: BUILD=build/ci tests/bench/carry.sh; carry .gpu-run, .gl.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup lessons

lessons=()
for f in assets/lessons/*.lesson; do lessons+=("$f"); done
"$WL" lesson check --measured "${lessons[@]}" > "$OUT/measured.txt" 2>&1
echo "exit $?" >> "$OUT/measured.txt"

GUI_TESTS=${GUI_TESTS:-"Story*:Lesson*:GuiCli*:Golden*:WorkerSource*"} run_gpu_and_sweep_tests
for story in /tmp/warplens-gui-StoryLessons-*; do
  for sidecar in "$story"/*.json; do
    [[ -f "$sidecar" ]] || continue
    python3 - "$sidecar" >> "$OUT/verdicts.txt" <<'PY'
import json, sys
lesson = json.load(open(sys.argv[1]))["shown"].get("lesson")
if lesson and lesson.get("verdict"):
    print(sys.argv[1].split("/")[-2][len("warplens-gui-"):], sys.argv[1].split("/")[-1], "|", lesson["verdict"])
PY
  done
done

tar czf "$RESULTS/lessons.tgz" -C "$OUT" .
echo "== lesson check --measured"; grep -v ": holds:" "$OUT/measured.txt" | tail -20
echo "== verdicts in the lesson stories (real worker)"; cat "$OUT/verdicts.txt"
print_test_results
