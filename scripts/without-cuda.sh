#!/usr/bin/env bash
# Runs a command as on a machine without the CUDA toolkit: in a mount namespace of its own, each
# toolkit folder (/usr/local/cuda-*, and CUDA_HOME's) is covered by an empty one and PATH loses
# its CUDA entries, so neither CMake nor the build nor the tests can reach nvcc, a CUDA header or
# a CUDA library. CI's no-toolkit job: scripts/without-cuda.sh cmake --workflow --preset nocuda
# (the preset also sets WARPLENS_USE_CUDA=OFF). Needs root, or unprivileged user namespaces, for
# unshare; where neither is allowed (a container without CAP_SYS_ADMIN) it says so and runs the
# command with PATH alone stripped of CUDA.
set -euo pipefail
if [[ $# -eq 0 ]]; then
  echo "usage: scripts/without-cuda.sh COMMAND [ARGS...]" >&2
  exit 2
fi
folders=()
for folder in /usr/local/cuda-* ${CUDA_HOME:+"$CUDA_HOME"}; do
  [[ -d $folder && ! -L $folder ]] && folders+=("$(readlink -f "$folder")")
done
cover=""
for folder in "${folders[@]}"; do cover+="mount -t tmpfs none '$folder' && "; done
path=$(tr ':' '\n' <<<"$PATH" | grep -v -i cuda | paste -sd:)
if ! unshare --mount --propagation private true 2>/dev/null; then
  echo "without-cuda: no mount namespace here ($(unshare --mount true 2>&1 | head -n 1)); the" \
       "toolkit stays on disk, and only PATH loses it" >&2
  exec env -u CUDA_HOME -u CUDACXX PATH="$path" "$@"
fi
exec unshare --mount --propagation private \
  env -u CUDA_HOME -u CUDACXX PATH="$path" bash -c "${cover}exec \"\$@\"" without-cuda "$@"
