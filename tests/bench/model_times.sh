#!/usr/bin/env bash
# How long `warplens model` takes for every bundled kernel at its default launch: the model's own
# time (model_seconds) and the whole command's, each the median of RUNS runs. Needs no GPU.
#   tests/bench/model_times.sh [WARPLENS] [RUNS]
set -euo pipefail

warplens=${1:-build/gpu/app/warplens}
runs=${2:-5}
[[ -x $warplens ]] || { echo "model_times: $warplens is not an executable; build warplens first" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "model_times: runs '$runs' must be a positive integer" >&2; exit 2; }

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "| kernel | model ms (median of $runs) | command ms |"
echo "|---|---:|---:|"
worst_model=0 worst_kernel=""
for id in $("$warplens" list | awk '$1 ~ /\// { print $1 }'); do
  model_ms=() command_ms=()
  for ((r = 0; r < runs; ++r)); do
    start=$(date +%s%N)
    seconds=$("$warplens" model "$id" --json | grep -o '"model_seconds": *[0-9.e+-]*' | awk '{ print $2 }')
    end=$(date +%s%N)
    model_ms+=("$(awk -v s="$seconds" 'BEGIN { printf "%.2f", s * 1000 }')")
    command_ms+=("$(( (end - start) / 1000000 ))")
  done
  m=$(printf '%s\n' "${model_ms[@]}" | median)
  c=$(printf '%s\n' "${command_ms[@]}" | median)
  printf '| %s | %.1f | %s |\n' "$id" "$m" "$c"
  if awk -v a="$m" -v b="$worst_model" 'BEGIN { exit !(a > b) }'; then
    worst_model=$m worst_kernel=$id
  fi
done
printf '\nslowest model: %s, %.1f ms\n' "$worst_kernel" "$worst_model"
