#pragma once
// CCL_HD marks code compiled for both host and device: the GPU kernels' per-thread logic is written
// once, so that the CPU executor in the tests runs exactly what the GPU runs.
#if defined(__CUDACC__)
#define CCL_HD __host__ __device__ __forceinline__
#else
#define CCL_HD inline
#endif

// Unrolls a loop of constant trip count in device code, so that small per-thread arrays indexed by
// its counter stay in registers (a dynamic index puts them in local memory).
#if defined(__CUDA_ARCH__)
#define CCL_UNROLL _Pragma("unroll")
#else
#define CCL_UNROLL
#endif
