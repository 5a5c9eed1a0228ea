// The bit helpers evaluated on the GPU, for the same table the host test checks (tests/emu).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/kernels/bits.cuh"

namespace {
__global__ void bit_table(std::uint32_t* out) {
    using namespace cclabel::cuda::detail;
    const std::uint32_t in[] = {0u, 1u, 0x80000000u, 0xFFFFFFFFu};
    int k = 0;
    for (std::uint32_t x : in) {
        out[k++] = clz32(x);
        out[k++] = ffs32(x);
        out[k++] = popc32(x);
    }
    for (std::uint32_t n : {0u, 1u, 31u, 32u}) out[k++] = mask_below(n);
    for (std::uint32_t l : {0u, 30u, 31u}) out[k++] = mask_upto(l);
    out[k++] = highest_bit(1u);
    out[k++] = highest_bit(0x80000001u);
}
}  // namespace

/// Fills @p host with 21 values (see bit_table); returns false on a CUDA error.
bool gpu_bit_table(std::uint32_t* host) {
    std::uint32_t* d = nullptr;
    if (cudaMalloc(&d, 21 * sizeof(std::uint32_t)) != cudaSuccess) return false;
    bit_table<<<1, 1>>>(d);
    const bool ok = cudaGetLastError() == cudaSuccess &&
                    cudaMemcpy(host, d, 21 * sizeof(std::uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(d);
    return ok;
}
