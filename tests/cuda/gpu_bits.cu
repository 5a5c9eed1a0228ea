// The bit helpers evaluated on the GPU, for the same table the host test checks (tests/emu).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

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

// FastDiv on the GPU (__umulhi) against the hardware-less division, over many dividends a thread.
__global__ void fast_div_check(const cclabel::cuda::detail::FastDiv* divs, int ndivs, std::uint32_t* errors) {
    const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < ndivs; ++k) {
        const auto f = divs[k];
        for (std::uint32_t j = 0; j < 64; ++j) {
            const std::uint32_t x = (t * 2654435761u) ^ (j * 0x9E3779B9u) ^ (j & 1 ? 0xFFFFFFFFu : 0u);
            if (f.div(x) != x / f.d || f.mod(x) != x % f.d) atomicAdd(errors, 1u);
        }
    }
}
}  // namespace

/// Number of wrong FastDiv results on the GPU for @p n divisors (-1 on a CUDA error).
long long gpu_fast_div_errors(const std::uint32_t* divisors, int n) {
    std::vector<cclabel::cuda::detail::FastDiv> h;
    for (int k = 0; k < n; ++k) h.emplace_back(divisors[k]);
    cclabel::cuda::detail::FastDiv* d = nullptr;
    std::uint32_t* e = nullptr;
    std::uint32_t errors = 0;
    if (cudaMalloc(&d, h.size() * sizeof(h[0])) != cudaSuccess) return -1;
    if (cudaMalloc(&e, 4) != cudaSuccess) return -1;
    bool ok = cudaMemcpy(d, h.data(), h.size() * sizeof(h[0]), cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemset(e, 0, 4) == cudaSuccess;
    fast_div_check<<<256, 256>>>(d, n, e);
    ok = ok && cudaGetLastError() == cudaSuccess && cudaMemcpy(&errors, e, 4, cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(d);
    cudaFree(e);
    return ok ? (long long)errors : -1;
}

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
