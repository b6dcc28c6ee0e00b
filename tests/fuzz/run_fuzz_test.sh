#!/usr/bin/env bash
# One fuzz target's CTest test (tests/fuzz/CMakeLists.txt), in one of two modes:
#   run_fuzz_test.sh inputs BINARY NAME SOURCE_DIR
#       runs every file of corpus/NAME and regressions/NAME once: a past finding stays fixed
#   run_fuzz_test.sh fuzz BINARY NAME SOURCE_DIR WORK_DIR SECONDS [DICTIONARY]
#       fuzzes for SECONDS from those files; new inputs go to WORK_DIR, never into the source tree
set -euo pipefail

mode=$1 binary=$2 name=$3 source=$4
corpus="$source/corpus/$name"
regressions="$source/regressions/$name"
limits=(-rss_limit_mb=2048 -timeout=5)
# Debian's llvm-14 names its symbolizer with the version; without one, reports show addresses.
if [[ -z "${ASAN_SYMBOLIZER_PATH:-}" && -x /usr/lib/llvm-14/bin/llvm-symbolizer ]]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
fi

case "$mode" in
  inputs)
    mapfile -t inputs < <(find "$corpus" "$regressions" -type f ! -name .gitkeep | sort)
    # With no file, libFuzzer would fuzz without end instead.
    ((${#inputs[@]})) || { echo "fuzz $name: no inputs in $corpus"; exit 1; }
    exec "$binary" "${limits[@]}" "${inputs[@]}"
    ;;
  fuzz)
    work=$5 seconds=$6 dictionary=${7:-}
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    options=("${limits[@]}" -max_total_time="$seconds" -print_final_stats=1
             -artifact_prefix="$work/artifacts/")
    [[ -n "$dictionary" ]] && options+=(-dict="$dictionary")
    status=0
    # The first folder takes the inputs that add coverage; the source folders are only read.
    "$binary" "${options[@]}" "$work/corpus" "$corpus" "$regressions" || status=$?
    if ((status)); then
      for found in "$work"/artifacts/*; do
        [[ -e "$found" ]] || continue
        echo "fuzz $name: a finding: $found"
        echo "fuzz $name: keep it as a regression test (cp '$found' $regressions/), then fix" \
             "the reader so that it refuses the input with one UsageError"
      done
    fi
    exit "$status"
    ;;
  *)
    echo "usage: $0 inputs|fuzz BINARY NAME SOURCE_DIR [WORK_DIR SECONDS [DICTIONARY]]" >&2
    exit 2
    ;;
esac
