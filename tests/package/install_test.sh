#!/usr/bin/env bash
# The Debian package as a person installs it: built by CPack from this build folder, installed by
# dpkg into a fresh root, and run from there with the CUDA toolkit and the source tree's assets
# hidden (a private mount namespace), so the installed files alone must serve: --version (CUPTI
# and NVRTC loaded from the package), list, a headless screenshot, a kernel file compiled by the
# package's NVRTC, doctor naming the installed assets; a kernel file that includes the toolkit's
# device headers refused in one line naming the header; then, with the toolkit moved to a folder
# no build knows, the same program finding those headers through CUDA_HOME (cooperative groups,
# CUB). The manual's chapters must be installed. Then lintian and desktop-file-validate, where
# installed. Exit 77 (a skip) where this machine cannot hide the toolkit.
#   install_test.sh BUILD_DIR CUDA_TOOLKIT_ROOT SOURCE_DIR
set -euo pipefail
build=$1 toolkit=$2 source=$3
work=$(mktemp -d /tmp/warplens-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }

if ! unshare -m true 2>/dev/null; then
  echo "skipped: this machine cannot make a mount namespace (unshare -m) to hide the toolkit"
  exit 77
fi

cpack -G DEB -B "$work/pkg" --config "$build/CPackConfig.cmake" > "$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/pkg/warplens_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
if grep -qi cuda <<< "$depends"; then fail "the package depends on a CUDA package: $depends"; fi

root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
# Its dependencies are Debian's, installed on this machine, not in the fresh root's database.
dpkg --root="$root" --force-depends --log=/dev/null -i "$deb" > "$work/dpkg.log" 2>&1 ||
  { cat "$work/dpkg.log"; fail "dpkg -i"; }

# Each run-path entry absolute or from $ORIGIN: an empty or relative one makes the loader search
# the current folder, where a planted library would run as WarpLens.
rpath=$(readelf -d "$root/usr/bin/warplens" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p')
[[ -n $rpath ]] || fail "the installed binary has no run path to its CUDA libraries"
IFS=: read -r -a entries <<< "$rpath:"
for entry in "${entries[@]}"; do
  [[ $entry == /* || $entry == '$ORIGIN'* ]] || fail "run path entry '$entry' in '$rpath'"
done
[[ $rpath != *:: && $rpath != :* && $rpath != *: ]] || fail "an empty run path entry in '$rpath'"

# The manual every command's --help points to: the README and each of its chapters.
for chapter in README.md $(cd "$source" && ls docs/*.md); do
  [[ -f $root/usr/share/doc/warplens/$chapter ]] || fail "the manual's $chapter is not installed"
done

# In a mount namespace of its own: the toolkit and the source tree's assets are empty folders.
cat > "$work/inside.sh" <<INSIDE
set -euo pipefail
mount -t tmpfs none "$toolkit"
mount -t tmpfs none "$source/assets"
wl=$root/usr/bin/warplens
\$wl --version | tee "$work/version.txt"
\$wl list > "$work/list.txt"
\$wl --headless --model --screenshot "$work/shot.png" > "$work/shot.txt"
\$wl model "$source/examples/saxpy.cu" > "$work/model.txt"
\$wl doctor > "$work/doctor.txt" || true
# A kernel file that includes the toolkit's device headers, with no toolkit: one line naming one.
set +e
\$wl model "$source/examples/libraries/cg_reduce.cu" > "$work/no-headers.txt" 2>&1
echo "exit \$?" >> "$work/no-headers.txt"
INSIDE
unshare -m bash "$work/inside.sh" || fail "a command of the installed program failed"

# The toolkit where no build put it (a worker's machine, a module system): the installed program
# finds its device headers through CUDA_HOME, as nvcc's profile names them, and compiles
# cooperative groups and CUB.
cat > "$work/moved.sh" <<MOVED
set -euo pipefail
mkdir -p "$work/elsewhere"
mount --bind "$(realpath "$toolkit")" "$work/elsewhere"
mount -t tmpfs none "$(realpath "$toolkit")"
mount -t tmpfs none "$source/assets"
export CUDA_HOME="$work/elsewhere"
wl=$root/usr/bin/warplens
\$wl doctor > "$work/doctor-moved.txt" || true
\$wl model "$source/examples/libraries/cg_reduce.cu" > "$work/cg.txt"
\$wl model "$source/examples/libraries/cub_block_reduce.cu" > "$work/cub.txt"
MOVED
unshare -m bash "$work/moved.sh" ||
  fail "the installed program with the toolkit moved: $(cat "$work/doctor-moved.txt")"

grep -q "^CUPTI .*$root/usr/lib/warplens/cuda/libcupti.so.13" "$work/version.txt" ||
  fail "CUPTI not loaded from the package"
grep -q "^NVRTC .*$root/usr/lib/warplens/cuda/libnvrtc.so.13" "$work/version.txt" ||
  fail "NVRTC not loaded from the package"
grep -q "vec_add/scalar" "$work/list.txt" || fail "list: $(head -3 "$work/list.txt")"
[[ -s "$work/shot.png" && -s "$work/shot.json" ]] || fail "no screenshot and sidecar: $(cat "$work/shot.txt")"
grep -q "registers" "$work/model.txt" || fail "model of a kernel file: $(head -5 "$work/model.txt")"
grep -q "^ok   assets         $root/usr/share/warplens " "$work/doctor.txt" ||
  fail "doctor's assets line: $(grep assets "$work/doctor.txt")"
grep -q "^ok   NVRTC " "$work/doctor.txt" || fail "doctor's NVRTC line: $(grep NVRTC "$work/doctor.txt")"
grep -q "^exit 2$" "$work/no-headers.txt" && [[ $(wc -l < "$work/no-headers.txt") == 2 ]] &&
  grep -q "cooperative_groups.h.*no CUDA toolkit was found.*set CUDA_HOME" "$work/no-headers.txt" ||
  fail "a file including cooperative_groups.h without the toolkit: $(cat "$work/no-headers.txt")"
grep -q "^FIX  CUDA headers" "$work/doctor.txt" ||
  fail "doctor without the toolkit's headers: $(grep -A1 "CUDA headers" "$work/doctor.txt")"
grep -q "^ok   CUDA headers   $work/elsewhere/.*include/cccl (from $work/elsewhere/bin/nvcc.profile)" \
  "$work/doctor-moved.txt" ||
  fail "doctor with the toolkit moved: $(grep -A1 "CUDA headers" "$work/doctor-moved.txt")"
grep -q "line [0-9]*: shared load" "$work/cg.txt" || fail "cg_reduce.cu's lines: $(cat "$work/cg.txt")"
grep -q "registers/thread" "$work/cub.txt" || fail "cub_block_reduce.cu: $(cat "$work/cub.txt")"
echo "the toolkit moved to $work/elsewhere:"; grep "CUDA headers" "$work/doctor-moved.txt"
echo "no toolkit, a file including cooperative_groups.h:"; cat "$work/no-headers.txt"
echo "installed and run from $root alone:"
cat "$work/doctor.txt"

if command -v lintian > /dev/null; then
  # The maintainer's address is the publisher's to set (WARPLENS_PACKAGE_MAINTAINER); the default
  # one is a placeholder lintian rightly calls bogus.
  findings=$(lintian --suppress-tags bogus-mail-host,bogus-mail-host-in-debian-changelog "$deb" 2>&1 |
    grep -v "running with root privileges" || true)
  [[ -z "$findings" ]] || fail "lintian: $findings"
  echo "lintian: no findings"
fi
if command -v desktop-file-validate > /dev/null; then
  desktop-file-validate "$root/usr/share/applications/warplens.desktop" || fail "desktop-file-validate"
  echo "desktop-file-validate: valid"
fi
