#!/usr/bin/env bash
# Records ptxas's report of every bundled kernel for every preset architecture into
# kernels/recorded_resource_usage.txt. A build that compiles fewer architectures (the quick start
# compiles one) or none (a build without the CUDA toolkit) takes the others' registers, shared
# memory and spills from this record; a build with the same nvcc checks it against its own
# report (the unit test RecordedResources.*). Run it after changing a kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
build=build/record-resources
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPLENS_BUILD_TESTS=OFF \
  "-DCMAKE_CUDA_ARCHITECTURES=75-real;80-real;86-real;89-real;90-real;100-real;120" >/dev/null
cmake --build "$build" --target wl_kernel_resource_usage --parallel "$(nproc)"
version=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
{
  echo "# ptxas --resource-usage of the bundled kernels, nvcc $version, every preset architecture."
  echo "# Written by scripts/record-kernel-resources.sh; read by tool/model/kernel_resources.cpp."
  grep -E "Compiling entry function|bytes stack frame|Used [0-9]+ registers" \
    "$build/kernels/kernel_resource_usage.inc"
} > kernels/recorded_resource_usage.txt.tmp
mv kernels/recorded_resource_usage.txt.tmp kernels/recorded_resource_usage.txt
echo "kernels/recorded_resource_usage.txt: $(grep -c 'Compiling entry' kernels/recorded_resource_usage.txt) kernel builds, nvcc $version"
