"""Every bundled kernel at its default shape, counters measured beside the model's predictions:
`warplens run ID --metrics all --json` per kernel, then one table row per kernel with the global
sectors and shared wavefronts (measured against predicted) and every flagged difference with the
reason WarpLens gave. Extra runs given as `ID:name=value,...` (a parameter set) follow the
catalog. Benchmarks only.

usage: kernel_counters.py WARPLENS OUT_DIR [ID:params ...]
"""

import json
import subprocess
import sys

KEYS = ["global_load_sectors", "global_store_sectors", "shared_load_wavefronts", "shared_store_wavefronts",
        "shared_load_instructions", "shared_store_instructions", "shared_load_bank_conflicts",
        "shared_store_bank_conflicts"]


def run(warplens, kernel, params, metrics="all"):
    command = [warplens, "run", kernel, "--metrics", metrics, "--json", "--max-time", "0.05"]
    for p in params:
        command += ["--param", p]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return None, done.stderr.strip()
    return json.loads(done.stdout), ""


def cell(row):
    measured, predicted = row["measured"], row["predicted"]
    if predicted is None:
        return f"{measured:.0f}"
    mark = " **differs**" if row["flagged"] else ""
    return f"{measured:.0f} vs {predicted:.0f} ({100 * row['difference']:+.2f} %){mark}"


def main(warplens, out_dir, extra):
    kernels = [(k["id"], []) for k in json.loads(subprocess.check_output([warplens, "list", "--json"]))]
    for spec in extra:
        kernel, _, params = spec.partition(":")
        kernels.append((kernel, params.split(",") if params else []))
    results, reasons = {}, []
    print("| kernel | passes | " + " | ".join(KEYS) + " |")
    print("|---|---|" + "---|" * len(KEYS))
    for kernel, params in kernels:
        label = kernel + (" " + " ".join(params) if params else "")
        result, error = run(warplens, kernel, params)
        if result is None:
            print(f"| {label} | failed: {error} |")
            continue
        results[label] = result
        counters = result.get("counters", {})
        rows = {r["key"]: r for r in counters.get("comparison", [])}
        cells = [cell(rows[k]) if k in rows else "-" for k in KEYS]
        print(f"| {label} | {counters.get('passes', 0)} | " + " | ".join(cells) + " |")
        for key, row in rows.items():
            if row["flagged"] and ("sectors" in key or "wavefronts" in key):
                reasons.append(f"- {label} {key}: {row['difference']:+.2%}: {row['reason'] or 'NO REASON GIVEN'}")
    print("\nFlagged sector and wavefront differences, with WarpLens's reason:\n")
    print("\n".join(reasons) if reasons else "(none)")
    with open(f"{out_dir}/kernel_counters.json", "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
