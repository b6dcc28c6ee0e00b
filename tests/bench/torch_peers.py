"""Times the peers WarpLens's kernels are compared with: torch.softmax over rows of three shapes,
torch's fp32 matmul at 4096^3 (cuBLAS underneath), torch.sum over 16M floats, a transpose of
8192^2 floats (.t().contiguous()), a device-to-device copy of 64M floats (Tensor.copy_) and
scaled_dot_product_attention in FP32 over 8 heads of 4096 queries at head sizes 64 and 128 (the
flash_attention variants' default shape). Medians of CUDA-event timings, L2 not flushed
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
    times = {"torch_version": torch.__version__}
    for rows, cols in [(8192, 8192), (32768, 1024), (1024, 32768)]:
        x = torch.randn(rows, cols, device="cuda")
        times["softmax_%dx%d_ms" % (rows, cols)] = median_ms(lambda: torch.softmax(x, dim=1))
    a = torch.randn(4096, 4096, device="cuda")
    b = torch.randn(4096, 4096, device="cuda")
    times["matmul_fp32_4096_ms"] = median_ms(lambda: a @ b, repeats=20)
    v = torch.randn(1 << 24, device="cuda")
    times["sum_16M_ms"] = median_ms(lambda: v.sum())
    m = torch.randn(8192, 8192, device="cuda")
    times["transpose_8192x8192_ms"] = median_ms(lambda: m.t().contiguous())
    src, dst = torch.randn(1 << 26, device="cuda"), torch.empty(1 << 26, device="cuda")
    times["copy_64M_floats_ms"] = median_ms(lambda: dst.copy_(src))
    for d in (64, 128):
        q, k, v = (torch.rand(1, 8, 4096, d, device="cuda") * 2 - 1 for _ in range(3))
        times["sdpa_fp32_d%d_ms" % d] = median_ms(
            lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v), repeats=30)
    print(json.dumps(times))


if __name__ == "__main__":
    main()
