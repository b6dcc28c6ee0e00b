# Sourced by the GPU machine's batch scripts: where results go, the EGL libraries and the carried
# executables put where the tests were built to find them, and the gpu and sweep tests run.
# `batch_setup NAME`: $RESULTS is the device tool's $OUT (the tarball goes there), $OUT a scratch
# folder /tmp/warplens-NAME for the logs, $WL the warplens executable.
# The executables carry.sh packed, in .gpu-run/bin.
unpack_carried_binaries() {
  if [[ -f .gpu-run/bin.tar.xz ]]; then tar -xJf .gpu-run/bin.tar.xz -C .gpu-run; fi
}

batch_setup() {
  unpack_carried_binaries
  RESULTS=${OUT:-/tmp}
  OUT=/tmp/warplens-$1
  rm -rf "$OUT" && mkdir -p "$OUT"
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  export LD_LIBRARY_PATH="$PWD/.gpu-run/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  BUILD=${BUILD:-build/gpu} # the paths the test executables were built with
  mkdir -p "$BUILD/app" "$BUILD/tests/bench"
  cp .gpu-run/bin/warplens "$BUILD/app/"
  cp .gpu-run/bin/wl_gpu_tests .gpu-run/bin/wl_gui_tests "$BUILD/tests/"
  # Where the tests were built to find them: the fault proxy and worker the stories run.
  cp .gpu-run/bin/wl_fault_proxy .gpu-run/bin/wl_fault_worker "$BUILD/tests/bench/"
  WL="$BUILD/app/warplens"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
}

# The sweep stories (or $GUI_TESTS) on the NVIDIA EGL device with a real worker, then the gpu
# tests. In this order because the gpu tests make faults on purpose, and on the H100 machine a
# fault in one process is followed by MMU faults in a later process's headless OpenGL context.
run_gpu_and_sweep_tests() {
  "$BUILD/tests/wl_gui_tests" --gtest_filter="${GUI_TESTS:-StorySweep*.*:SweepView.*:GuiCli.*}" \
    > "$OUT/gui_tests.log" 2>&1
  echo "exit $?" >> "$OUT/gui_tests.log"
  "$BUILD/tests/wl_gpu_tests" > "$OUT/gpu_tests.log" 2>&1
  echo "exit $?" >> "$OUT/gpu_tests.log"
}

print_test_results() {
  echo "== gpu tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gpu_tests.log"
  echo "== gui tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^exit" "$OUT/gui_tests.log"
}
