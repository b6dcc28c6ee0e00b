#!/usr/bin/env bash
# A person's own kernel files on the GPU machine, in one call: the live edit loop (saxpy and the
# tiled transpose, 20 saves each) on a GPU that has seen no fault yet, the GUI tests that open
# kernel files with a real worker, the gpu tests, and the example files beside the bundled kernels
# they copy (seed_files.py: equal work counters, timing noise). PARTS=...,faults adds, last, a
# kernel file that faults (an illegal address) and one that never ends (the time limit), each
# followed by a live session, and the driver's Xid lines: on the H100 machine the headless GUI's
# own OpenGL context takes MMU faults after another process's fault, bundled kernel or file alike.
# Logs in $OUT/own_kernel.tgz. Here first: cmake --build --preset gpu && tests/bench/carry.sh;
# carry .gpu-run and .gl. PARTS (live,tests,seeds) chooses the parts.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup own-kernel
PARTS=${PARTS:-live,tests,seeds}
export WARPLENS_ASSETS="$PWD/assets"

# far.cu writes a terabyte past its buffer; spin.cu waits on a flag no thread sets.
write_fault_files() {
  cat > "$OUT/far.cu" <<'EOF'
// @warplens kernel far
// @warplens size n = 1024
// @warplens arg out: out int[n]
// @warplens grid ceil_div(n, block.x)
// @warplens check none
__global__ void far(int* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x + (1ll << 40)] = 1;
}
EOF
  cat > "$OUT/spin.cu" <<'EOF'
// @warplens kernel spin
// @warplens size n = 1024
// @warplens arg flag: in int[1] zeros
// @warplens arg out: out int[n]
// @warplens grid ceil_div(n, block.x)
// @warplens check none
__global__ void spin(const int* flag, int* out) {
  while (*(const volatile int*)flag == 0) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
EOF
}

# The live session's workers run through a wrapper that keeps their stderr in $OUT.
live_session() { # $1: the log's name, $2: the kernel file
  printf '#!/bin/sh\nexec "%s" "$@" 2>>"%s/worker_%s.err"\n' "$PWD/$WL" "$OUT" "$1" > "$OUT/wl_$1"
  chmod +x "$OUT/wl_$1"
  timeout 180 .gpu-run/bin/wl_live_file "$OUT/wl_$1" "$2" > "$OUT/live_$1.log" 2>&1
  echo "exit $?" >> "$OUT/live_$1.log"
}

if [[ $PARTS == *live* ]]; then
  live_session saxpy examples/saxpy.cu
  live_session transpose examples/transpose.cu
fi

if [[ $PARTS == *tests* ]]; then
  GUI_TESTS='StoryKernelFile*:KernelFileLive*:StorySource*:StoryTimings*:GuiCli*:Golden*:WorkerSource*' \
    run_gpu_and_sweep_tests
fi

if [[ $PARTS == *seeds* ]]; then
  python3 tests/bench/seed_files.py "$WL" > "$OUT/seeds.md" 2>&1
  echo "exit $?" >> "$OUT/seeds.md"
fi

if [[ $PARTS == *faults* ]]; then
  write_fault_files
  timeout 60 "$WL" run "$OUT/far.cu" > "$OUT/far.log" 2>&1
  echo "exit $?" >> "$OUT/far.log"
  live_session after_far examples/saxpy.cu
  timeout 60 "$WL" run "$OUT/spin.cu" --kernel-time-limit 1 > "$OUT/spin.log" 2>&1
  echo "exit $?" >> "$OUT/spin.log"
  live_session after_spin examples/saxpy.cu
  (dmesg 2>&1 | grep -i xid | cut -c1-160) > "$OUT/xid.log"
fi

tar czf "$RESULTS/own_kernel.tgz" -C "$OUT" .
[[ -f "$OUT/gpu_tests.log" ]] && print_test_results
[[ -f "$OUT/seeds.md" ]] && { echo "== seed files"; cat "$OUT/seeds.md"; }
for log in far spin; do
  [[ -f "$OUT/$log.log" ]] && { echo "== run $log.cu"; tail -3 "$OUT/$log.log"; }
done
for log in "$OUT"/live_*.log; do
  [[ -f $log ]] && { echo "== $(basename "$log")"; grep -E "first Run|median|no new|cannot|exit" "$log" | head -6; }
done
[[ -s "$OUT/xid.log" ]] && { echo "== the driver's Xid lines"; cat "$OUT/xid.log"; }
for log in "$OUT"/worker_*.err; do
  [[ -s $log ]] && { echo "== $(basename "$log")"; tail -5 "$log"; }
done
