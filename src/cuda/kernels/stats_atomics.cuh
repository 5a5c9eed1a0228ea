#pragma once
// What the pictures' and the volumes' statistics share on the GPU (stats_cuda.cu,
// volume_stats_cuda.cu): the hardware atomics their bodies' Ops call, on shared or global memory
// (generic addresses), and the largest label, for callers that give no count.
#include <cstdint>

namespace cclabel::cuda::detail {

/// Zero additions are skipped: most of a tile's sums are of pixels a label does not have.
struct StatsAtomics {
    __device__ std::uint32_t ld_label(const std::uint32_t* p) { return __ldg(p); }
    __device__ std::uint32_t ld(const std::uint32_t* p) { return *static_cast<const volatile std::uint32_t*>(p); }
    __device__ std::uint32_t cas(std::uint32_t* p, std::uint32_t c, std::uint32_t v) { return atomicCAS(p, c, v); }
    __device__ void add32(std::uint32_t* p, std::uint32_t v) {
        if (v) atomicAdd(p, v);
    }
    __device__ void add64(unsigned long long* p, std::uint64_t v) {
        if (v) atomicAdd(p, static_cast<unsigned long long>(v));
    }
    __device__ void min32(std::uint32_t* p, std::uint32_t v) { atomicMin(p, v); }
    __device__ void max32(std::uint32_t* p, std::uint32_t v) { atomicMax(p, v); }
    __device__ void min64(unsigned long long* p, std::uint64_t v) { atomicMin(p, static_cast<unsigned long long>(v)); }
    __device__ void max64(unsigned long long* p, std::uint64_t v) { atomicMax(p, static_cast<unsigned long long>(v)); }
};

namespace {

/// The largest of @p n labels into @p out (zeroed by the caller), a grid-stride loop.
__global__ void max_label_kernel(const std::uint32_t* labels, std::uint64_t n, std::uint32_t* out) {
    std::uint32_t m = 0;
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::uint64_t(gridDim.x) * blockDim.x)
        m = max(m, __ldg(labels + i));
    m = __reduce_max_sync(0xFFFFFFFFu, m);
    if ((threadIdx.x & 31u) == 0 && m) atomicMax(out, m);
}

}  // namespace
}  // namespace cclabel::cuda::detail
