#!/usr/bin/env bash
# Installs the Debian 12 packages WarpLens builds and tests with, skipping those already there,
# and checks for the CUDA 13 toolkit (which comes from NVIDIA, not Debian). clang-14 and its
# runtime libraries build the fuzz targets (libFuzzer); llvm-14 symbolizes sanitizer reports;
# clang-format-14 checks the sources' layout; libx11-dev builds the window tests' file dropper
# (GLFW's -dev package only recommends it); lintian and desktop-file-utils check the Debian package
# the package test builds.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libgtest-dev nlohmann-json3-dev libcli11-dev
  libimgui-dev libglfw3-dev libstb-dev libegl-dev libgl-dev libx11-dev fonts-dejavu-core xvfb xdotool
  clang-14 libclang-rt-14-dev llvm-14 clang-format-14
  lintian desktop-file-utils
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  echo "warplens: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The CUDA toolkit: nvcc on PATH, or the standard install location.
if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "warplens: the CUDA 13 toolkit is missing (no nvcc on PATH or in /usr/local/cuda/bin);" \
       "install cuda-toolkit-13-0 from NVIDIA's Debian 12 repository" >&2
  exit 1
fi
