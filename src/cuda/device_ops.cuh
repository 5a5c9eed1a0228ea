#pragma once
// The Ops of the per-thread programs (kernels/bodies.cuh, kernels/volume_bodies.cuh) on the GPU:
// the device side of what tests/emu/executor.hpp emulates. CUDA sources only.
#include <cuda_runtime.h>

#include <cstdint>

#include "cclabel/detail/hd.hpp"
#include "cuda/tuning.hpp"

namespace cclabel::cuda::detail {

/// The Ops of bodies.cuh on the GPU. Shared-array loads are relaxed atomics at device scope, so
/// spin loops re-read memory and concurrent atomicMin writes are not data races.
struct DeviceOps {
    std::uint32_t* smem;  // ≥ 33 words
    std::uint32_t tid, nthreads;
    std::uint32_t* tsm = nullptr;  // the tile's shared parent array (tile_union_find), one word a thread
    std::uint32_t* tkeys = nullptr;  // the tile's pixel values (shared_keys), one word a thread

    __device__ std::uint32_t ld(const std::uint32_t* p) {
        std::uint32_t v;
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        return v;
    }
    // A weak load: may be served from L1, so possibly stale (find and Number's walks allow that).
    __device__ std::uint32_t ld_weak(const std::uint32_t* p) {
        std::uint32_t v;
        asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
        return v;
    }
    __device__ std::uint32_t sh_ld(std::uint32_t k) { return static_cast<volatile std::uint32_t*>(tsm)[k]; }
    __device__ void sh_st(std::uint32_t k, std::uint32_t v) { static_cast<volatile std::uint32_t*>(tsm)[k] = v; }
    __device__ std::uint32_t sh_amin(std::uint32_t k, std::uint32_t v) { return atomicMin(&tsm[k], v); }
    __device__ void key_st(std::uint32_t k, std::uint32_t v) { tkeys[k] = v; }
    __device__ std::uint32_t key_ld(std::uint32_t k) { return tkeys[k]; }
    __device__ std::uint32_t shfl(std::uint32_t mask, std::uint32_t v, std::uint32_t src) {
        return __shfl_sync(mask, v, int(src));
    }
    __device__ std::uint32_t ld_acquire(const std::uint32_t* p) {
        std::uint32_t v;
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        return v;
    }
    __device__ void st(std::uint32_t* p, std::uint32_t v) {
        asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
    }
    __device__ void st_release(std::uint32_t* p, std::uint32_t v) {
        asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
    }
    __device__ std::uint32_t amin(std::uint32_t* p, std::uint32_t v) { return atomicMin(p, v); }
    __device__ std::uint32_t aadd(std::uint32_t* p, std::uint32_t v) { return atomicAdd(p, v); }
    __device__ std::uint32_t aor(std::uint32_t* p, std::uint32_t v) { return atomicOr(p, v); }
    __device__ void fence() { __threadfence(); }
    __device__ void pause() { __nanosleep(100); }
    __device__ void bound(std::uint64_t, std::uint64_t, const char*) {}
    __device__ std::uint32_t ballot(std::uint32_t mask, bool pred) { return __ballot_sync(mask, pred); }
    __device__ void sync() { __syncthreads(); }
    __device__ void check_tile_total(std::uint32_t, std::uint32_t, std::uint32_t) {}
    // A thread's own consecutive pixels: nobody else writes them during Number, so plain (and,
    // when aligned, 16-byte) accesses.
    __device__ void ld_own(const std::uint32_t* p, std::uint32_t n, std::uint32_t* v) {
        if (n == 4 && (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0) {
            const uint4 q = *reinterpret_cast<const uint4*>(p);
            v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
        } else {
            CCL_UNROLL
            for (std::uint32_t j = 0; j < 4; ++j)
                if (j < n) v[j] = p[j];
        }
    }
    // A thread's own n ≤ kMaxNumberPx consecutive words (v holds n): 16-byte stores for whole
    // aligned quads.
    __device__ void st_own(std::uint32_t* p, std::uint32_t n, const std::uint32_t* v) {
        const bool aligned = (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
        CCL_UNROLL
        for (std::uint32_t q = 0; q < kMaxNumberPx; q += 4) {
            if (q >= n) break;
            if (aligned && q + 4 <= n) {
                *reinterpret_cast<uint4*>(p + q) = make_uint4(v[q], v[q + 1], v[q + 2], v[q + 3]);
            } else {
                CCL_UNROLL
                for (std::uint32_t j = q; j < q + 4; ++j)
                    if (j < n) p[j] = v[j];
            }
        }
    }
    // A segment's labels (Number of the segment pipeline): 16-byte stores when whole and aligned.
    __device__ void st_row(std::uint32_t* p, std::uint32_t n, const std::uint32_t* v) {
        if (n == 32 && (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0) {
            CCL_UNROLL
            for (std::uint32_t j = 0; j < 8; ++j)
                reinterpret_cast<uint4*>(p)[j] = make_uint4(v[4 * j], v[4 * j + 1], v[4 * j + 2], v[4 * j + 3]);
        } else {
            CCL_UNROLL
            for (std::uint32_t j = 0; j < 32; ++j)
                if (j < n) p[j] = v[j];
        }
    }
    __device__ std::uint32_t block_ticket(std::uint32_t* counter, std::uint32_t t) {
        if (t == 0) smem[32] = atomicAdd(counter, 1u);
        __syncthreads();
        const std::uint32_t v = smem[32];
        __syncthreads();
        return v;
    }
    // Needs every thread of the block, and a block of whole warps.
    __device__ std::uint32_t block_exclusive_sum(std::uint32_t v, std::uint32_t& total) {
        const std::uint32_t lane = tid & 31u, warp = tid >> 5, warps = (nthreads + 31u) >> 5;
        std::uint32_t x = v;
        for (std::uint32_t o = 1; o < 32; o <<= 1) {
            const std::uint32_t y = __shfl_up_sync(0xFFFFFFFFu, x, o);
            if (lane >= o) x += y;
        }
        if (lane == 31) smem[warp] = x;
        __syncthreads();
        if (warp == 0) {
            std::uint32_t s = lane < warps ? smem[lane] : 0u;
            for (std::uint32_t o = 1; o < 32; o <<= 1) {
                const std::uint32_t y = __shfl_up_sync(0xFFFFFFFFu, s, o);
                if (lane >= o) s += y;
            }
            smem[lane] = s;
        }
        __syncthreads();
        const std::uint32_t before = (warp > 0 ? smem[warp - 1] : 0u) + x - v;
        total = smem[warps - 1];
        __syncthreads();
        return before;
    }
};

}  // namespace cclabel::cuda::detail
