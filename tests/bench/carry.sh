#!/usr/bin/env bash
# Here, before a GPU-machine call: the executables of a build folder and the few shared libraries
# the GPU machine lacks (muParser, GLFW, stb, X11 client libraries), in .gpu-run/ (under the carry limit,
# unlike the whole build folder): the executables stripped and packed in .gpu-run/bin.tar.xz,
# which the batch scripts unpack (unpack_carried_binaries). Name .gpu-run and .gl
# (shared/device/prepare-gl.sh) in carry.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/gpu}
rm -rf .gpu-run/bin
mkdir -p .git/info .gpu-run/bin .gpu-run/lib
grep -qx "/.gpu-run/" .git/info/exclude 2>/dev/null || echo "/.gpu-run/" >> .git/info/exclude
# BINS: the executables to carry, by name (all unless given): a call that needs few leaves room
# under the carry limit for the working tree.
ALL="app/warplens tests/wl_gpu_tests tests/wl_gui_tests tests/bench/wl_live_gui tests/bench/wl_live_file
tests/bench/wl_bench tests/bench/wl_worker_faults tests/bench/wl_fault_proxy tests/bench/wl_fault_worker
tests/wl_remote_tests"
for path in $ALL; do
  if [[ -z "${BINS:-}" || " $BINS " == *" $(basename "$path") "* ]]; then
    cp "$BUILD/$path" .gpu-run/bin/
  fi
done
for lib in libmuparser.so.2 libglfw.so.3 libstb.so.0 libX11.so.6 libxcb.so.1 libXau.so.6 libXdmcp.so.6 libbsd.so.0 libmd.so.0; do
  cp -L "/lib/x86_64-linux-gnu/$lib" .gpu-run/lib/
done
strip --strip-unneeded .gpu-run/bin/*
tar -cJf .gpu-run/bin.tar.xz -C .gpu-run bin && rm -rf .gpu-run/bin
du -sh .gpu-run
