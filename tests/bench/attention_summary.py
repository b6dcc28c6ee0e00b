"""The flash attention climb's table from attention_batch.sh's files: each variant's median time,
GFLOP/s, registers and local bytes a thread, whether it verified, and its speed against torch's
FP32 scaled_dot_product_attention timed in the same call; then the per-site rows of the
tensor-core variants. Benchmarks only.

usage: attention_summary.py OUT_DIR
"""

import json
import os
import sys

from site_rows import print_site_rows


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main(out):
    torch = load(os.path.join(out, "torch.json")) or {}
    print("| variant | median ms | GFLOP/s | registers | local B | verified | torch SDPA FP32 ms | x torch |")
    print("|---|---|---|---|---|---|---|---|")
    for v in ("d64", "d128", "tensor_d64", "tensor_d128"):
        r = load(os.path.join(out, "run.%s.json" % v))
        if not r or not r.get("timing"):
            print("| %s | failed | | | | | | |" % v)
            continue
        ms = r["timing"]["median_ms"]
        d = 64 if v.endswith("64") else 128
        peer = torch.get("sdpa_fp32_d%d_ms" % d)
        attributes = r.get("attributes") or {}
        print("| %s | %.4f | %.0f | %s | %s | %s | %s | %s |" % (
            v, ms, r["figures"].get("compute", 0), attributes.get("registers", "-"),
            attributes.get("local_bytes_per_thread", "-"),
            "yes" if (r.get("verification") or {}).get("passed") else "NO",
            "%.4f" % peer if peer else "-", "%.2fx" % (peer / ms) if peer else "-"))
    print()
    for v in ("tensor_d64", "tensor_d128"):
        print_site_rows(v, load(os.path.join(out, "site.%s.json" % v)))


if __name__ == "__main__":
    main(sys.argv[1])
