#!/bin/bash
# Writes the outputs the golden test compares, with the warplens given, into a folder:
#   tests/golden/make_outputs.sh WARPLENS DIR
# Every output is of model mode (no GPU: the models, and for the GUI the bundled recording), so
# two builds that mean the same write the same figures. tests/golden/1abc513/ holds what the
# commit before the renovation of the figure and panel tables wrote; tests/gui/golden_test.cpp
# writes them again with this build and diffs the two, allowing only the changes the README lists.
set -euo pipefail
warplens=$1
dir=$2
mkdir -p "$dir"
cd "$dir"
for kernel in vec_add/scalar transpose/smem matmul/tiled matmul/cublas softmax/online; do
  name=${kernel//\//_}
  "$warplens" model "$kernel" --json > "model_$name.json"
done
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
