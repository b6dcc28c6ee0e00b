#!/bin/sh
# Compiler launcher for the kernels: runs one nvcc command and keeps ptxas's --resource-usage
# report beside the object file (OBJECT.resources), printing only the compiler's other messages.
object=""
previous=""
for arg in "$@"; do
  [ "$previous" = "-o" ] && object="$arg"
  previous="$arg"
done
report="${object:-nvcc}.resources"
"$@" 2>"$report.tmp"
status=$?
grep -v -e '^ptxas info' -e '^    [0-9]* bytes stack frame' "$report.tmp" >&2
mv "$report.tmp" "$report"
exit $status
