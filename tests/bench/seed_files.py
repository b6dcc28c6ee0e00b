#!/usr/bin/env python3
"""Bundled kernels beside the same code written as a person's kernel file (tests/bench/kernel_files):
the counters that count work (sectors, requests, wavefronts, instructions) must be equal, and the
median times within the noise of the two runs. Run on the GPU machine:
    tests/bench/seed_files.py path/to/warplens  > table.md
Prints a markdown table; exits 1 when a work counter differs or a file kernel fails verification."""
import json
import subprocess
import sys

PAIRS = [
    ("vec_add/scalar", "tests/bench/kernel_files/vec_add.cu", "256"),
    ("broadcast_add/xyz", "tests/bench/kernel_files/broadcast_add.cu", "32x4x2"),
    ("softmax/naive", "tests/bench/kernel_files/softmax_naive.cu", "256"),
]
# Counters of the work the code does, equal for the same code on the same inputs: instructions,
# requests, the sectors L1 asks for, wavefronts and bank conflicts. DRAM bytes and L2's sectors from
# L1 depend on what the caches hold at each moment and vary from run to run; they are printed
# beside, not compared.
WORK = ("global_load_instructions", "global_store_instructions", "global_load_requests",
        "global_store_requests", "global_load_sectors", "global_store_sectors",
        "shared_load_instructions", "shared_store_instructions", "shared_load_wavefronts",
        "shared_store_wavefronts", "shared_load_bank_conflicts", "shared_store_bank_conflicts",
        "warp_instructions", "thread_instructions")
CACHES = ("dram_read_bytes", "dram_write_bytes", "l2_read_sectors_from_l1")


def run(warplens, kernel, block):
    out = subprocess.run([warplens, "run", kernel, "--block", block, "--metrics", "all", "--json"],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"{kernel}: exit {out.returncode}: {out.stdout[-400:]} {out.stderr[-400:]}")
    return json.loads(out.stdout)


def counters(result, keys=WORK):
    return {v["key"]: v["value"] for v in result["counters"]["values"] if v["key"] in keys}


def main():
    warplens = sys.argv[1]
    failed = False
    print("| bundled | file | work counters compared | equal | cache counters, file / bundled "
          "| bundled median ms (noise) | file median ms (noise) | ratio | verified |")
    print("|---|---|---|---|---|---|---|---|---|")
    for bundled_id, file, block in PAIRS:
        bundled, mine = run(warplens, bundled_id, block), run(warplens, file, block)
        a, b = counters(bundled), counters(mine)
        keys = sorted(set(a) & set(b))
        differ = [k for k in keys if a[k] != b[k]]
        ca, cb = counters(bundled, CACHES), counters(mine, CACHES)
        caches = ", ".join(f"{k} {cb[k] / ca[k]:.4f}" for k in CACHES if k in ca and k in cb and ca[k])
        ta, tb = bundled["timing"], mine["timing"]
        ratio = tb["median_time"] / ta["median_time"]
        verified = mine["verification"]["passed"]
        failed |= bool(differ) or not verified or not keys
        print(f"| {bundled_id} | {file.split('/')[-1]} | {len(keys)} | "
              f"{'all' if not differ else 'NOT ' + ', '.join(f'{k} {a[k]:g}/{b[k]:g}' for k in differ)} | "
              f"{caches} | "
              f"{ta['median_time']:.4f} ({100 * ta['noise']:.2f} %) | "
              f"{tb['median_time']:.4f} ({100 * tb['noise']:.2f} %) | {ratio:.3f} | {verified} |")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
