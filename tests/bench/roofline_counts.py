"""Every bundled kernel at its default launch with the roofline's counters: the FP32 operations
the counters saw (FADD + FMUL + 2 x FFMA thread instructions) beside the kernel's FLOP count, the
DRAM bytes beside the model's, and the bytes L1 moved to and from L2 beside the model's global
sectors, each with the difference and the reason WarpLens gave where it is over 2 %.
`warplens run ID --metrics SET --json` per kernel. Benchmarks only.

usage: roofline_counts.py WARPLENS OUT_DIR [METRIC_SET]
"""

import json
import subprocess
import sys

from kernel_counters import run

ROWS = [("fp32_operations", "FLOPs"), ("dram_traffic", "DRAM bytes"), ("l2_traffic", "L2 bytes")]


def cell(row):
    if row is None:
        return "-"
    measured, predicted = row["measured"], row["predicted"]
    if predicted is None:
        return f"{measured:.4g} (no model)"
    if row["difference"] is None:
        return f"{measured:.4g} vs {predicted:.4g}"
    mark = " **>2 %**" if row["flagged"] else ""
    return f"{measured:.4g} vs {predicted:.4g} ({100 * row['difference']:+.1f} %){mark}"


def main(warplens, out_dir, metrics):
    kernels = [k["id"] for k in json.loads(subprocess.check_output([warplens, "list", "--json"]))]
    results, reasons, unexplained = {}, [], 0
    print("| kernel | passes | s | " + " | ".join(name for _, name in ROWS) + " |")
    print("|---|---|---|" + "---|" * len(ROWS))
    for kernel in kernels:
        result, error = run(warplens, kernel, [], metrics)
        if result is None:
            print(f"| {kernel} | failed: {error} |")
            continue
        results[kernel] = result
        counters = result.get("counters", {})
        rows = {r["key"]: r for r in counters.get("comparison", [])}
        values = {v["key"]: v["value"] for v in counters.get("values", [])}
        cells = [cell(rows.get(key)) for key, _ in ROWS]
        print(f"| {kernel} | {counters.get('passes', 0)} | {counters.get('seconds', 0):.2f} | "
              + " | ".join(cells) + " |")
        fp32 = [values.get(f"fp32_{k}_instructions") for k in ("add", "mul", "fma")]
        for key, name in ROWS:
            row = rows.get(key)
            if row and row["flagged"]:
                unexplained += not row["reason"]
                detail = f" (FADD {fp32[0]:.4g}, FMUL {fp32[1]:.4g}, FFMA {fp32[2]:.4g})" \
                    if key == "fp32_operations" and None not in fp32 else ""
                reasons.append(f"- {kernel} {name}{detail}: {100 * (row['difference'] or 0):+.1f} %: "
                               f"{row['reason'] or 'NO REASON GIVEN'}")
    print("\nDifferences over 2 %, with the reason WarpLens shows:\n")
    print("\n".join(reasons) if reasons else "(none)")
    print(f"\nkernels: {len(results)} of {len(kernels)} ran; differences without a reason: {unexplained}")
    with open(f"{out_dir}/roofline_counts.json", "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "roofline")
