#!/usr/bin/env bash
# What an idle WarpLens costs: CPU seconds over SECONDS (default 60) of quiet, counted from /proc
# for the whole process tree, and the frames drawn, counted from outside (wl_frame_counter,
# preloaded in place of glfwSwapBuffers). Bars: under 1 % of one core together, at most one
# frame a second.
#   tests/bench/idle_batch.sh window [SECONDS]   the GUI in a window on Xvfb with its worker (on a
#                                                machine without a GPU the worker turns to model
#                                                mode), left alone after its first figures
#   tests/bench/idle_batch.sh worker [SECONDS]   `warplens worker` alone after one measured Run
#                                                (the GPU machine, which has no X server)
# WL names the warplens binary and COUNTER the frame counter (defaults: the ci build here).
set -uo pipefail
MODE=${1:-window}
SECONDS_IDLE=${2:-60}
WL=${WL:-build/ci/app/warplens}
COUNTER=${COUNTER:-build/ci/tests/bench/libwl_frame_counter.so}
SCRATCH=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$SCRATCH"' EXIT

# CPU seconds (user + system) of a process and all its descendants.
cpu_of_tree() {
  python3 - "$1" <<'PY'
import os, sys
root, parent, used = int(sys.argv[1]), {}, {}
tick = os.sysconf("SC_CLK_TCK")
for name in os.listdir("/proc"):
    if not name.isdigit():
        continue
    try:
        text = open(f"/proc/{name}/stat").read()
    except OSError:
        continue
    fields = text[text.rfind(")") + 2:].split()
    parent[int(name)] = int(fields[1])
    used[int(name)] = (int(fields[11]) + int(fields[12])) / tick
total = 0.0
for pid, seconds in used.items():
    p = pid
    while p > 1 and p != root:
        p = parent.get(p, 0)
    total += seconds if p == root else 0
print(f"{total:.2f}")
PY
}

frames() { cat "$SCRATCH/frames" 2>/dev/null || echo 0; }

# Waits until the frame count stops changing for 3 s (at most 90 s).
settle() {
  local last=-1
  for _ in $(seq 90); do
    [ "$(frames)" = "$last" ] && [ "$last" != 0 ] && sleep 2 && [ "$(frames)" = "$last" ] && return
    last=$(frames); sleep 1
  done
}

report() { # WHAT CPU_SECONDS FRAMES
  awk -v what="$1" -v cpu="$2" -v f="$3" -v s="$SECONDS_IDLE" 'BEGIN {
    share = 100 * cpu / s; rate = f / s
    verdict = (share < 1 && rate <= 1) ? "ok" : "FAILED"
    printf "| %s | %d s | %.2f s | %.2f %% | %d (%.2f/s) | %s |\n", what, s, cpu, share, f, rate, verdict
    exit verdict != "ok" }'
}

echo "| idle | for | CPU | of one core | frames | bar |"
echo "|---|---|---|---|---|---|"
if [ "$MODE" = window ]; then
  display=":$((300 + $$ % 500))"
  Xvfb "$display" -screen 0 1440x900x24 -nolisten tcp > "$SCRATCH/xvfb.log" 2>&1 &
  for _ in $(seq 50); do DISPLAY=$display xdotool getmouselocation > /dev/null 2>&1 && break; sleep 0.1; done
  env DISPLAY="$display" HOME="$SCRATCH" XDG_CONFIG_HOME="$SCRATCH/config" LD_PRELOAD="$COUNTER" \
    WARPLENS_FRAME_COUNT_FILE="$SCRATCH/frames" "$WL" --kernel vec_add/scalar > "$SCRATCH/gui.log" 2>&1 &
  gui=$!
  settle
  before_cpu=$(cpu_of_tree "$gui"); before_frames=$(frames)
  sleep "$SECONDS_IDLE"
  after_cpu=$(cpu_of_tree "$gui"); after_frames=$(frames)
  report "GUI and worker ($(grep -c . "$SCRATCH/gui.log") log lines)" \
    "$(awk -v a="$after_cpu" -v b="$before_cpu" 'BEGIN { print a - b }')" \
    $((after_frames - before_frames))
else
  mkfifo "$SCRATCH/in"
  "$WL" worker < "$SCRATCH/in" > "$SCRATCH/answers" 2> "$SCRATCH/worker.log" &
  worker=$!
  exec 3> "$SCRATCH/in"
  echo '{"id":1,"type":"run","kernel":"vec_add/scalar","params":{},"max_seconds":0.5,"metrics":"default"}' >&3
  for _ in $(seq 120); do grep -q '"type":"\(result\|error\)"' "$SCRATCH/answers" && break; sleep 0.5; done
  grep -o '"type":"\(result\|error\)"' "$SCRATCH/answers" | tail -1
  sleep 2
  before_cpu=$(cpu_of_tree "$worker")
  sleep "$SECONDS_IDLE"
  after_cpu=$(cpu_of_tree "$worker")
  report "worker after one Run" "$(awk -v a="$after_cpu" -v b="$before_cpu" 'BEGIN { print a - b }')" 0
fi
