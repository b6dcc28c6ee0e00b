#!/usr/bin/env bash
# Every C++ and CUDA source of the project laid out as .clang-format says, by clang-format-14 (a
# later clang-format lays some lines out differently). Prints each file that differs and how to
# fix it; exits 1 if any does. Usage: scripts/check-format.sh [CLANG_FORMAT]
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${1:-clang-format-14}
if ! command -v "$clang_format" >/dev/null; then
  echo "format: '$clang_format' not found; scripts/install-deps.sh installs clang-format-14" >&2
  exit 1
fi
mapfile -t sources < <(find app kernels tool viz tests \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' \) |
                       sort)
differing=()
for source in "${sources[@]}"; do
  "$clang_format" --dry-run --Werror "$source" >/dev/null 2>&1 || differing+=("$source")
done
if ((${#differing[@]})); then
  echo "format: ${#differing[@]} of ${#sources[@]} files differ from .clang-format's layout:" \
       "${differing[*]}" >&2
  echo "format: fix them with: $clang_format -i ${differing[*]}" >&2
  exit 1
fi
echo "format: all ${#sources[@]} sources laid out as .clang-format says"
