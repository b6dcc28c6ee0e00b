#!/bin/sh
# Compiler launcher for the kernels: runs one nvcc command, keeps ptxas's --resource-usage report
# beside the object file (OBJECT.resources), printing only the compiler's other messages, and
# keeps the cubin of every real architecture and the PTX (OBJECT.keep/), whose line tables map
# each instruction to its source line: the binary embeds the cubins (per-site counters, the
# Source panel) and the tests read the PTX (every site's line holds its access).
object=""
previous=""
for arg in "$@"; do
  [ "$previous" = "-o" ] && object="$arg"
  previous="$arg"
done
report="${object:-nvcc}.resources"
keep="${object:-nvcc}.keep"
rm -rf "$keep" && mkdir -p "$keep"
"$@" --keep --keep-dir "$keep" 2>"$report.tmp"
status=$?
grep -v -e '^ptxas info' -e '^    [0-9]* bytes stack frame' "$report.tmp" >&2
mv "$report.tmp" "$report"
# The preprocessed and intermediate files are large and of no further use.
find "$keep" -type f ! -name '*.cubin' ! -name '*.ptx' -delete
exit $status
