#!/usr/bin/env bash
# Runs `warplens model FILE` and `warplens model FILE --json` on every hostile kernel file here
# (or on the files given as arguments), each under `timeout 60` and /usr/bin/time -v, and prints
# one table row per file: exit code, wall seconds, the signal that ended it (if any), max RSS,
# stdout/stderr line counts, whether the output held raw control characters, the --json run's
# exit/seconds/validity, and how many "not predicted" notes the text output carried.
#
#   WARPLENS=/path/to/warplens tests/kernel_files/hostile/run_all.sh [FILE.cu ...]
#
# Exits 1 if any file's AUTO verdict is CRASH, HANG, CTRL, MULTI, JSON or another exit code than
# 0 and 2 (the test model.hostile_kernel_files runs it so); SLOW is printed, not failed.
#
# Environment: WARPLENS (the binary; default build/ci/app/warplens),
# LIMIT (seconds, default 60), OUT_DIR (where each run's stdout/stderr/time go; default
# /tmp/warplens-hostile-out), XDG_CACHE_HOME (kept if set; NVRTC compiles are cached there).
# The AUTO column is a mechanical first verdict only: CRASH (signal or exit 134/139), HANG (past
# the limit), SLOW (over 5 s), CTRL (raw control characters), MULTI (exit 2 with more than one
# line on stderr+stdout), JSON (exit 0 but --json not valid JSON), else ok / refused (exit 2).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${WARPLENS:-$here/../../../build/ci/app/warplens}"
limit="${LIMIT:-60}"
out_dir="${OUT_DIR:-/tmp/warplens-hostile-out}"
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-/tmp/warplens-hostile-cache}"
mkdir -p "$out_dir"

if [ $# -gt 0 ]; then files=("$@"); else files=("$here"/h*.cu); fi

# run NAME SUFFIX ARGS... -> sets rc secs sig rss olines elines ctrl
run_one() {
  local stem="$1"; shift
  local o="$out_dir/$stem.out" e="$out_dir/$stem.err" t="$out_dir/$stem.time"
  local start end
  start=$(date +%s.%N)
  : >"$t"
  if [ -x /usr/bin/time ]; then # for the peak memory; a machine without it leaves the column '?'
    /usr/bin/time -v -o "$t" timeout -k 5 "$limit" "$bin" "$@" >"$o" 2>"$e"
  else
    timeout -k 5 "$limit" "$bin" "$@" >"$o" 2>"$e"
  fi
  rc=$?
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  sig=-
  if grep -q "Command terminated by signal" "$t" 2>/dev/null; then
    sig=$(sed -n 's/.*Command terminated by signal \([0-9]*\).*/\1/p' "$t" | head -1)
  elif [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ] && [ "$rc" -ne 137 ] || [ "$rc" -eq 134 ] || [ "$rc" -eq 139 ]; then
    sig=$((rc - 128))
  fi
  if [ "$rc" -eq 124 ]; then sig=timeout; fi
  if [ "$rc" -eq 137 ] && awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s >= l) }'; then sig=timeout; fi
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$t" 2>/dev/null)
  rss="${rss:-?}"
  olines=$(wc -l <"$o"); elines=$(wc -l <"$e")
  # raw control characters other than tab and newline, in either stream
  if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$o" "$e"; then ctrl=yes; else ctrl=no; fi
}

failed=()
printf '%-40s %4s %7s %7s %7s %6s %6s %4s | %4s %7s %5s | %5s  %s\n' \
  file exit secs signal rss_MB out_ln err_ln ctrl jexit jsecs jok notes AUTO
for f in "${files[@]}"; do
  name="$(basename "$f")"; stem="${name%.cu}"
  run_one "$stem" model "$f"
  t_rc=$rc t_secs=$secs t_sig=$sig t_rss=$rss t_ol=$olines t_el=$elines t_ctrl=$ctrl
  notes=$(awk '/^not predicted:/ { on = 1; next } on && /^  / { n++ } END { print n + 0 }' "$out_dir/$stem.out")
  run_one "$stem.json" model "$f" --json
  j_rc=$rc j_secs=$secs j_sig=$sig j_ctrl=$ctrl
  j_ok=-
  if [ "$j_rc" -eq 0 ]; then
    if python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$out_dir/$stem.json.out" 2>/dev/null
    then j_ok=yes; else j_ok=NO; fi
  fi
  auto=ok
  for pair in "$t_rc:$t_sig" "$j_rc:$j_sig"; do
    r="${pair%%:*}" s="${pair#*:}"
    if [ "$s" = timeout ]; then auto=HANG
    elif [ "$s" != - ] || [ "$r" -eq 134 ] || [ "$r" -eq 139 ]; then auto=CRASH; fi
  done
  if [ "$auto" = ok ]; then
    if awk -v a="$t_secs" -v b="$j_secs" 'BEGIN { exit !(a > 5 || b > 5) }'; then auto=SLOW
    elif [ "$t_ctrl" = yes ] || [ "$j_ctrl" = yes ]; then auto=CTRL
    elif [ "$t_rc" -eq 2 ] && [ $((t_ol + t_el)) -gt 1 ]; then auto=MULTI
    elif [ "$j_ok" = NO ]; then auto=JSON
    elif [ "$t_rc" -eq 2 ]; then auto=refused
    elif [ "$t_rc" -ne 0 ]; then auto="exit$t_rc"
    fi
  fi
  printf '%-40s %4s %7s %7s %7s %6s %6s %4s | %4s %7s %5s | %5s  %s\n' \
    "$name" "$t_rc" "$t_secs" "$t_sig" "$t_rss" "$t_ol" "$t_el" "$t_ctrl" \
    "$j_rc" "$j_secs" "$j_ok" "$notes" "$auto"
  case "$auto" in ok | refused | SLOW) ;; *) failed+=("$name: $auto") ;; esac
done
echo "outputs in $out_dir (FILE.out/.err/.time and FILE.json.out/.err/.time)"
if ((${#failed[@]})); then
  printf 'hostile kernel files that failed: %s\n' "${failed[*]}"
  exit 1
fi
echo "all ${#files[@]} hostile kernel files: no signal, no hang, one line when refused, valid JSON"
