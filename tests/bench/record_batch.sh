#!/usr/bin/env bash
# A recording for model mode on the GPU machine: `warplens record` of every bundled kernel (its
# default block and presets with the default and memory counters and the per-site pass, the
# default block with its stalls and energy) as preset ARCH (h200 unless given), the file in
# $RESULTS/recording.tgz with its log; RECORD_SECONDS bounds it (the file holds every kernel
# finished by then). Then assets/recordings/ARCH.json here is that file.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup recording
export WARPLENS_ASSETS="$PWD/assets"
ARCH=${ARCH:-h200}
start=$(date +%s)
timeout "${RECORD_SECONDS:-300}" "$WL" record --out "$OUT/$ARCH.json" --arch "$ARCH" \
  > "$OUT/record.log" 2>&1
echo "exit $? after $(($(date +%s) - start)) s" >> "$OUT/record.log"
tar -czf "$RESULTS/recording.tgz" -C "$OUT" .
echo "$(grep -c "default block recorded, stalls sampled, energy measured" "$OUT/record.log")" \
  "kernels with stalls and energy at their default block"
grep -E "NOT recorded|stalls [^s]|energy [^m]" "$OUT/record.log" | head -20
grep -v "presets recorded" "$OUT/record.log" | tail -5
ls -la "$OUT/$ARCH.json"
