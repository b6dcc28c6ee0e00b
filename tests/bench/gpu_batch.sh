#!/usr/bin/env bash
# One call on the GPU machine: the gpu tests, the benchmarks and the peers, logs under $OUT and a
# short summary last. Run from the repository root with a Release build for the device in BUILD.
set -uo pipefail
BUILD=${BUILD:-build/gpu}
OUT=${OUT:-/tmp/warplens-out}
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$OUT/device.txt"
(cd "$BUILD" && ctest --output-on-failure -V -L gpu) > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests exit $?" >> "$OUT/gpu_tests.log"
"$BUILD/tests/bench/wl_bench" catalog > "$OUT/catalog.md" 2> "$OUT/catalog.err"
"$BUILD/tests/bench/wl_bench" copy > "$OUT/copy.md" 2>&1
python3 tests/bench/torch_peers.py > "$OUT/torch.json" 2>&1

echo; echo "== gpu tests"; grep -E "tests passed|kernels,|points|Failed|FAILED" "$OUT/gpu_tests.log" | tail -8
echo; echo "== copy"; cat "$OUT/copy.md"
echo; echo "== torch"; cat "$OUT/torch.json"
echo; echo "== catalog"; cat "$OUT/catalog.md" "$OUT/catalog.err"
