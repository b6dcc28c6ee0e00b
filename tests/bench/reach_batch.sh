#!/usr/bin/env bash
# Where WarpLens reaches, on the GPU machine in one call: `warplens doctor` and `--version` on a
# machine with a GPU, the driver and CUPTI as root; then the remote-worker tests (an OpenSSH
# server of their own on 127.0.0.1) where this machine has sshd, so a run and a sweep through ssh
# are measured on the GPU and compared with a local worker's. Logs in $OUT/reach.tgz.
# Here first: cmake --build --preset gpu && tests/bench/carry.sh; carry .gpu-run and .gl.
set -uo pipefail
source tests/bench/batch_setup.sh
batch_setup reach
cp .gpu-run/bin/wl_remote_tests "$BUILD/tests/"

"$WL" --version > "$OUT/version.txt" 2>&1
"$WL" doctor > "$OUT/doctor.txt" 2>&1
echo "exit $?" >> "$OUT/doctor.txt"
if command -v sshd > /dev/null || [[ -x /usr/sbin/sshd ]]; then
  "$BUILD/tests/wl_remote_tests" > "$OUT/remote.log" 2>&1
  echo "exit $?" >> "$OUT/remote.log"
else
  echo "no sshd on this machine (openssh-server is not installed, and it has no network to get it)" > "$OUT/remote.log"
fi

tar czf "$RESULTS/reach.tgz" -C "$OUT" .
echo "== warplens --version"; cat "$OUT/version.txt"
echo "== warplens doctor"; cat "$OUT/doctor.txt"
echo "== remote-worker tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED|  OK) |^\[  FAILED  \]|^exit|no sshd" "$OUT/remote.log"
