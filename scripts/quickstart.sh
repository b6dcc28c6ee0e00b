#!/usr/bin/env bash
# Sets WarpLens up on Debian 12 with the CUDA 13 toolkit, builds it and runs one job:
#   scripts/quickstart.sh          the main job: the GUI (with no display, the default view as a PNG)
#   scripts/quickstart.sh test     the whole test suite (GPU tests skip where there is no GPU), the
#                                  unit tests sanitized, and the fuzz targets (15 s each)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-main}
if [[ $mode == main || $mode == test ]]; then scripts/install-deps.sh "$mode"; fi
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"

case "$mode" in
  main)
    # The GUI only: the warplens target, on every core (the tests are the test command's to build).
    # The kernels are compiled for this machine's GPU alone (the H100's sm_90 where there is none):
    # the other presets' registers come from kernels/recorded_resource_usage.txt, and the release
    # preset on its own (cmake --preset release) compiles every architecture, for a package.
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ' || true)
    gpu="this machine's GPU"
    [[ $arch =~ ^[0-9]+$ ]] || { arch=90; gpu="no GPU here: the H100's, the GUI's default"; }
    echo "warplens: configuring and building the warplens target (release preset) on $(nproc) cores"
    configured=$(cmake --preset release -DCMAKE_CUDA_ARCHITECTURES="$arch-real" 2>&1) ||
      { echo "$configured" >&2; exit 1; }
    # Without the CUDA toolkit the configure step says what it skips; with it, the kernels' target.
    grep "WarpLens: " <<<"$configured" || echo "warplens: the kernels are compiled for sm_$arch ($gpu)"
    cmake --build --preset release --target warplens --parallel "$(nproc)"
    build/release/app/warplens
    ;;
  test)
    # The suite, then the unit tests under ASan + UBSan, then each reader fuzzed 15 s from the same
    # sanitized build (the GUI's readers among them; `cmake --workflow --preset sanitize-gui` runs
    # the gui tests there too, which takes longer than the rest together).
    # The suite's tests run one per core (a preset of its own may say otherwise): most of a GUI
    # story's time is frames waiting on the model or a worker, not the core it holds.
    export CTEST_PARALLEL_LEVEL="${CTEST_PARALLEL_LEVEL:-$(nproc)}"
    # The unit tests run once, in the sanitized build, where a leak or undefined behaviour fails
    # them too; the ci build runs every other label.
    cmake --workflow --preset ci-but-unit
    cmake --workflow --preset sanitize
    ;;
  *)
    echo "usage: scripts/quickstart.sh [main|test]" >&2
    exit 2
    ;;
esac
