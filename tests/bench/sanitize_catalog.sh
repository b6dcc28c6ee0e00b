#!/usr/bin/env bash
# On the GPU machine: compute-sanitizer's memcheck, racecheck, synccheck and initcheck over every
# bundled kernel, each at every test size x allowed preset block (`wl_bench shapes ID`, verified).
#   tests/bench/sanitize_catalog.sh WL_BENCH LOG_DIR
# ONLY (a grep -E pattern) picks kernels; past DEADLINE seconds (540) no new run starts and the
# rest say "not run", so one call of the GPU machine (600 s at most) always ends with its table.
# Prints a markdown table: kernel x tool, the errors compute-sanitizer counted (or the exit
# status when the run itself failed), and the totals; one log per run in LOG_DIR.
set -uo pipefail
bench=$1
logs=$2
mkdir -p "$logs"
tools=(memcheck racecheck synccheck initcheck)
kernels=$("$bench" catalog-ids 2>/dev/null | grep -E "${ONLY:-.}" || true)
deadline=${DEADLINE:-540}
if [[ -z "$kernels" ]]; then
  echo "sanitize_catalog: $bench catalog-ids listed no kernels" >&2
  exit 2
fi
echo "| kernel | runs | ${tools[*]/%/ |}"
echo "|---|---|$(printf -- '---|%.0s' "${tools[@]}")"
declare -A total
for kernel in $kernels; do
  cells=""
  runs="?"
  for tool in "${tools[@]}"; do
    log="$logs/${kernel//\//_}.$tool.log"
    if ((SECONDS > deadline)); then
      cells+=" not run |"
      continue
    fi
    timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 \
      "$bench" shapes "$kernel" > "$log" 2>&1
    status=$?
    # memcheck, synccheck and initcheck end with "ERROR SUMMARY: N errors", racecheck with
    # "RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)".
    errors=$(grep -oE 'ERROR SUMMARY: [0-9]+|\([0-9]+ errors' "$log" | grep -oE '[0-9]+' | tail -1)
    if [[ -z "$errors" ]]; then errors="exit $status"
    elif [[ $status -ne 0 && $status -ne 99 ]]; then errors="$errors (exit $status)"
    fi
    [[ "$errors" == 0 ]] && total[$tool]=$((${total[$tool]:-0} + 1))
    runs=$(grep -oE '[0-9]+ runs, [0-9]+ verified' "$log" | head -1 || true)
    cells+=" $errors |"
  done
  echo "| $kernel | ${runs:-?} |$cells"
done
echo
for tool in "${tools[@]}"; do
  echo "$tool: ${total[$tool]:-0} of $(wc -w <<< "$kernels") kernels clean"
done
