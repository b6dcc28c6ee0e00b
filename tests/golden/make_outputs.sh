#!/bin/bash
# The outputs the golden test compares with the approved ones in tests/golden/current/:
#   tests/golden/make_outputs.sh WARPLENS DIR     writes them, with the warplens given, into DIR
#   tests/golden/make_outputs.sh --update [TESTS] makes this build's outputs the approved ones
#                                                 (TESTS: the gui tests' binary, by default the
#                                                 ci preset's); review the diff of current/ after
# Every output is of model mode (no GPU: the models, and for the GUI the bundled recording), so
# two builds that mean the same write the same figures.
set -euo pipefail
if [[ ${1:-} == --update ]]; then
  here=$(cd "$(dirname "$0")" && pwd)
  tests=${2:-$here/../../build/ci/tests/wl_gui_tests}
  WARPLENS_GOLDEN_UPDATE=1 "$tests" --gtest_filter=Golden.EveryOutputSaysWhatTheApprovedSnapshotSays
  exit
fi
warplens=$1
dir=$2
mkdir -p "$dir"
cd "$dir"
"$warplens" list --json > list.json
"$warplens" arches --json > arches.json
# Every bundled kernel at its default launch: the model's every figure and site.
for kernel in $("$warplens" list | grep -o '^[a-z0-9_]*/[a-z0-9_]*'); do
  name=${kernel//\//_}
  "$warplens" model "$kernel" --json > "model_$name.json"
done
"$warplens" model transpose/smem --arch t4 --json > model_transpose_smem_t4.json
"$warplens" sweep vec_add/scalar --model --block-x 64,256,1024 --csv sweep_vec_add_scalar.csv > /dev/null
"$warplens" sweep transpose/smem --model --block-x 32 --block-y 8,16 --csv sweep_transpose_smem.csv > /dev/null
"$warplens" sweep matmul/tiled --model --block-x 16,32 --block-y 16,32 --csv sweep_matmul_tiled.csv > /dev/null
for kernel in transpose/smem matmul/tiled; do
  name=${kernel//\//_}
  HOME="$PWD" XDG_CONFIG_HOME="$PWD/config" "$warplens" --headless --model --kernel "$kernel" \
    --screenshot "sidecar_$name.png" > /dev/null
  rm "sidecar_$name.png"
done
rm -rf config
