// Runs one differential kernel's PTX on the GPU and writes its output buffer, whose FNV-1a hash
// tests/unit/ptx_model_test.cpp (PtxModel.DifferentialKernelsMatchTheH200BitForBit) holds the
// PTX model to. The PTX is tests/fuzz/corpus/ptx_program/diff_*.ptx, NVRTC's from diff.cu and
// mem.cu here (compute_90, -lineinfo); the driver JIT-compiles it, as it would a person's file.
// On the GPU machine:
//   g++ -O1 runner.cpp -o runner -l:libcuda.so.1
//   ./runner diff_int.ptx _Z8diff_intPKjPji 4096 128 int.bin     (diff_warp: 32 threads)
// Each thread reads three words of the input below and writes 64 results.

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// The driver API's few calls, declared here: the machine has the driver, not the toolkit.
extern "C" {
int cuInit(unsigned);
int cuDeviceGet(int*, int);
int cuDevicePrimaryCtxRetain(void**, int);
int cuCtxSetCurrent(void*);
int cuModuleLoadData(void**, const void*);
int cuModuleGetFunction(void**, void*, const char*);
int cuMemAlloc_v2(unsigned long long*, std::size_t);
int cuMemcpyHtoD_v2(unsigned long long, const void*, std::size_t);
int cuMemcpyDtoH_v2(void*, unsigned long long, std::size_t);
int cuMemsetD32_v2(unsigned long long, unsigned, std::size_t);
int cuLaunchKernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                   void*, void**, void**);
int cuCtxSynchronize();
}

namespace {

bool ok(int status, const char* call) {
  if (status != 0)
    std::printf("%s failed: %d\n", call, status);
  return status == 0;
}

unsigned mixed(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352d;
  x ^= x >> 15;
  x *= 0x846ca68b;
  return x ^ (x >> 16);
}

// The inputs: zeros, signed zeros, infinities, NaNs, denormals, ones and halves among random
// words, as the unit test makes them (diff_input).
unsigned input(unsigned i) {
  const unsigned r = mixed(i * 2654435761u + 1);
  switch (i % 16) {
  case 0:
    return 0;
  case 1:
    return 0x80000000;
  case 2:
    return 0x7f800000;
  case 3:
    return 0x7fc00000;
  case 4:
    return 1;
  case 5:
    return 0x3f800000;
  case 6:
    return 0xbf000000;
  case 7:
    return r & 0x807fffff;
  case 8:
    return r & 0x8000ffff;
  case 9:
    return 0x3c00 | (r & 0x80008000);
  default:
    return r;
  }
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::printf("usage: runner PTX KERNEL N THREADS OUT\n");
    return 2;
  }
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  const std::string ptx = text.str();
  int n = std::atoi(argv[3]);
  const int threads = std::atoi(argv[4]);
  int device = 0;
  void *context = nullptr, *module = nullptr, *kernel = nullptr;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !ok(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(context), "cuCtxSetCurrent") ||
      !ok(cuModuleLoadData(&module, ptx.c_str()), "cuModuleLoadData") ||
      !ok(cuModuleGetFunction(&kernel, module, argv[2]), "cuModuleGetFunction"))
    return 1;
  std::vector<unsigned> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n) * 64);
  for (int i = 0; i < n; ++i)
    in[static_cast<std::size_t>(i)] = input(static_cast<unsigned>(i));
  unsigned long long in_device = 0, out_device = 0;
  if (!ok(cuMemAlloc_v2(&in_device, in.size() * 4), "cuMemAlloc") ||
      !ok(cuMemAlloc_v2(&out_device, out.size() * 4), "cuMemAlloc") ||
      !ok(cuMemcpyHtoD_v2(in_device, in.data(), in.size() * 4), "cuMemcpyHtoD") ||
      !ok(cuMemsetD32_v2(out_device, 0xdeadbeef, out.size()), "cuMemsetD32"))
    return 1;
  void* args[] = {&in_device, &out_device, &n};
  if (!ok(cuLaunchKernel(kernel, static_cast<unsigned>(n / threads), 1, 1,
                         static_cast<unsigned>(threads), 1, 1, 0, nullptr, args, nullptr),
          "cuLaunchKernel") ||
      !ok(cuCtxSynchronize(), "cuCtxSynchronize") ||
      !ok(cuMemcpyDtoH_v2(out.data(), out_device, out.size() * 4), "cuMemcpyDtoH"))
    return 1;
  std::ofstream(argv[5], std::ios::binary)
      .write(reinterpret_cast<const char*>(out.data()),
             static_cast<std::streamsize>(out.size() * 4));
  std::printf("%s ok\n", argv[2]);
}
