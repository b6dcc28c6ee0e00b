#!/usr/bin/env bash
# Installs the Debian 12 packages WarpLens needs, skipping those already there, and checks for the
# CUDA 13 toolkit (which comes from NVIDIA, not Debian). muParser reads the index playground's
# expressions.
#   scripts/install-deps.sh main   what building and running the program needs
#   scripts/install-deps.sh test   that, and what the tests need (the default)
# The tests' own: GoogleTest; python3 runs the scripted checks (the rooms' order, the two access
# models compared); libx11-dev builds the window tests' file dropper (GLFW's -dev package
# only recommends it); xvfb and xdotool drive a real window; clang-14 and its runtime libraries
# build the fuzz targets (libFuzzer), llvm-14 symbolizes sanitizer reports, clang-format-14 checks
# the sources' layout; dpkg-dev and file let CPack find the Debian package's dependencies
# (dpkg-shlibdeps), and lintian and desktop-file-utils check the package the package test builds; openssh-server runs the remote-worker tests' own server on 127.0.0.1 (the system's ssh
# service it would start is left off).
set -euo pipefail
mode=${1:-test}

packages=(
  cmake ninja-build g++ pkg-config nlohmann-json3-dev libcli11-dev libmuparser-dev
  libimgui-dev libglfw3-dev libstb-dev libegl-dev libgl-dev fonts-dejavu-core
)
case "$mode" in
  main) ;;
  test)
    packages+=(libgtest-dev python3 libx11-dev xvfb xdotool clang-14 libclang-rt-14-dev llvm-14
               clang-format-14 dpkg-dev file lintian desktop-file-utils openssh-server)
    ;;
  *) echo "usage: scripts/install-deps.sh [main|test]" >&2; exit 2 ;;
esac

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  echo "warplens: installing ${missing[*]}"
  $sudo apt-get update -qq
  # openssh-server is for a server the tests start themselves: its package's service is not
  # started (policy-rc.d says no while it installs) and is disabled after.
  new_sshd=0
  if [[ " ${missing[*]} " == *" openssh-server "* && ! -e /usr/sbin/policy-rc.d ]]; then
    new_sshd=1
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod +x /usr/sbin/policy-rc.d
  fi
  status=0
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || status=$?
  if ((new_sshd)); then
    $sudo rm -f /usr/sbin/policy-rc.d
    if command -v systemctl >/dev/null; then $sudo systemctl disable ssh.service >/dev/null 2>&1 || true; fi
    echo "warplens: openssh-server installed for the remote-worker tests; its system service is" \
         "not running (systemctl enable --now ssh starts it)"
  fi
  ((status == 0)) || exit "$status"
fi

# The CUDA toolkit: nvcc on PATH, or the standard install location.
if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "warplens: the CUDA 13 toolkit is missing (no nvcc on PATH or in /usr/local/cuda/bin);" \
       "install cuda-toolkit-13-0 from NVIDIA's Debian 12 repository" >&2
  exit 1
fi
