#!/usr/bin/env bash
# One call on the GPU machine for the GUI: the gpu tests, every GUI test and story on the NVIDIA
# EGL device with a real worker measuring, and the live-edit benchmark; logs under $OUT, a short
# table last. Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
OUT=${OUT:-/tmp/warplens-out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
source tests/bench/batch_setup.sh && unpack_carried_binaries
export LD_LIBRARY_PATH="$PWD/.gpu-run/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PATH="$PATH:/usr/local/cuda/bin"
BUILD=${BUILD:-build/gpu} # the paths the test executables were built with
mkdir -p "$BUILD/app" "$BUILD/tests/bench"
cp .gpu-run/bin/warplens "$BUILD/app/"
cp .gpu-run/bin/wl_gpu_tests .gpu-run/bin/wl_gui_tests "$BUILD/tests/"
cp .gpu-run/bin/wl_live_gui .gpu-run/bin/wl_bench .gpu-run/bin/wl_fault_proxy "$BUILD/tests/bench/"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
"$BUILD/tests/wl_gpu_tests" --gtest_filter="${GPU_TESTS:-*}" > "$OUT/gpu_tests.log" 2>&1
echo "exit $?" >> "$OUT/gpu_tests.log"
"$BUILD/tests/wl_gui_tests" --gtest_filter="${GUI_TESTS:-*}" > "$OUT/gui_tests.log" 2>&1
echo "exit $?" >> "$OUT/gui_tests.log"
"$BUILD/tests/bench/wl_live_gui" "$BUILD/app/warplens" > "$OUT/live_gui.log" 2>&1
echo "exit $?" >> "$OUT/live_gui.log"
(cd "$OUT" && ls gpu_tests.log gui_tests.log live_gui.log; find /tmp -maxdepth 2 -path '/tmp/warplens-gui-Story*' -name '*.json') |
  tar czf "$OUT/logs.tgz" -C "$OUT" -T - 2>/dev/null

echo "== gpu tests";  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^exit" "$OUT/gpu_tests.log"
echo "== gui tests";  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gui_tests.log"
echo "== modes the stories ran in"; grep -ho '"mode": "[^"]*' /tmp/warplens-gui-Story*/*.json 2>/dev/null | sort | uniq -c | cut -c1-160
echo "== live gui";   tail -15 "$OUT/live_gui.log"
