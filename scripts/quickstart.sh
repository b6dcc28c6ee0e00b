#!/usr/bin/env bash
# Sets WarpLens up on Debian 12 with the CUDA 13 toolkit, builds it and runs one job:
#   scripts/quickstart.sh          the main job (an occupancy report on the default example)
#   scripts/quickstart.sh test     the whole test suite (GPU tests skip where there is no GPU)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"

case "${1:-main}" in
  main)
    cmake --preset release >/dev/null
    cmake --build --preset release
    build/release/tool/warplens occupancy --arch h100 --block 256 --regs 64 --smem 32768 --grid 1024
    ;;
  test)
    cmake --workflow --preset ci
    ;;
  *)
    echo "usage: scripts/quickstart.sh [main|test]" >&2
    exit 2
    ;;
esac
