#!/usr/bin/env bash
# One call on the GPU machine for robustness: 100 faults injected into the GUI's worker
# (wl_worker_faults), then compute-sanitizer over the kernel catalog (sanitize_catalog.sh); logs
# in $OUT/faults-logs.tgz, the two tables last. Here first: cmake --build --preset gpu &&
# tests/bench/carry.sh; carry .gpu-run and .gl. FAULTS (100) and SANITIZE (1) choose the parts;
# BUDGET (570 s) bounds the whole call: compute-sanitizer starts no run past it. KINDS=others leaves the illegal-address runs out, KINDS=illegal makes every fault one.
set -uo pipefail
OUT=${OUT:-/tmp/warplens-out}
mkdir -p "$OUT/logs"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export LD_LIBRARY_PATH="$PWD/.gpu-run/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PATH="$PATH:/usr/local/cuda/bin"
export WARPLENS_ASSETS="$PWD/assets"
source tests/bench/batch_setup.sh && unpack_carried_binaries
bin=.gpu-run/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"

if [[ "${FAULTS:-100}" -gt 0 ]]; then
  start=$SECONDS
  timeout "${FAULTS_SECONDS:-540}" "$bin/wl_worker_faults" "$PWD/$bin/wl_fault_proxy" "$PWD/$bin/wl_fault_worker" \
    "${FAULTS:-100}" "${KINDS:-all}" > "$OUT/logs/worker_faults.log" 2>&1
  echo "exit $? after $((SECONDS - start)) s" >> "$OUT/logs/worker_faults.log"
  (dmesg 2>/dev/null | grep -i xid | tail -20 || true) > "$OUT/logs/xid.log"
fi
if [[ "${SANITIZE:-1}" == 1 ]]; then
  start=$SECONDS
  DEADLINE=$((${BUDGET:-570} - SECONDS)) tests/bench/sanitize_catalog.sh "$bin/wl_bench" "$OUT/logs/sanitizer" > "$OUT/logs/sanitize_catalog.md" 2>&1
  echo "exit $? after $((SECONDS - start)) s" >> "$OUT/logs/sanitize_catalog.md"
fi
tar czf "$OUT/faults-logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs/sanitizer"

[[ -f "$OUT/logs/worker_faults.log" ]] && { echo "== worker faults"; grep -vE '^\| [0-9]+ \|' "$OUT/logs/worker_faults.log" | tail -40; tail -5 "$OUT/logs/xid.log"; }
[[ -f "$OUT/logs/sanitize_catalog.md" ]] && { echo "== compute-sanitizer"; cat "$OUT/logs/sanitize_catalog.md"; }
