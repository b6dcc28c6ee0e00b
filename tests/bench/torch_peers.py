"""Times the peers WarpLens's kernels are compared with: torch.softmax over 8192x8192 rows and
torch's fp32 matmul at 4096^3 (cuBLAS underneath). Medians of CUDA-event timings, L2 not flushed
between launches the way torch users run them, printed as one JSON object. Benchmarks only."""

import json

import torch


def median_ms(fn, warmup=5, repeats=50):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


def main():
    torch.backends.cuda.matmul.allow_tf32 = False  # the same fp32 arithmetic as our kernels
    x = torch.randn(8192, 8192, device="cuda")
    a = torch.randn(4096, 4096, device="cuda")
    b = torch.randn(4096, 4096, device="cuda")
    print(json.dumps({
        "torch_version": torch.__version__,
        "softmax_8192x8192_ms": median_ms(lambda: torch.softmax(x, dim=1)),
        "matmul_fp32_4096_ms": median_ms(lambda: a @ b, repeats=20),
    }))


if __name__ == "__main__":
    main()
