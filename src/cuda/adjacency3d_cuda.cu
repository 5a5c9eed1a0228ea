// The region adjacency graph of a label volume on the GPU: one kernel reads the labels once, a
// tile of 32 columns × 64 rows of a slice at a time (kernels/adjacency3d_bodies.cuh, the program
// the emulator of tests/emu runs too), and puts each tile's pairs with their contact counts out;
// the pictures' host half (edges_of_items, adjacency_cuda.cu) sorts and sums them by pair.
// Labels in host memory go up first through the staging ring (cuda::host::copy_up), slice by slice
// where the slices are not back to back.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cclabel/adjacency.hpp"
#include "cclabel/error.hpp"
#include "core/adjacency_backends.hpp"
#include "core/backends.hpp"
#include "cuda/adjacency_items.hpp"
#include "cuda/handles.hpp"
#include "cuda/host_stager.hpp"
#include "cuda/kernels/adjacency3d_bodies.cuh"

namespace cclabel::cuda::detail {
namespace {

/// The Ops of kernels/adjacency3d_bodies.cuh on the GPU: labels through the read-only cache, the
/// warp's shuffles and votes over all 32 lanes (a tile's warps are always full), shared and global
/// words by plain or atomic operations.
struct DeviceOps {
    __device__ std::uint32_t ld(const std::uint32_t* p) { return __ldg(p); }
    __device__ std::uint32_t shfl_down(std::uint32_t v) { return __shfl_down_sync(0xFFFFFFFFu, v, 1); }
    __device__ std::uint32_t shfl_up(std::uint32_t v) { return __shfl_up_sync(0xFFFFFFFFu, v, 1); }
    __device__ std::uint64_t shfl_up64(std::uint64_t v) {
        return __shfl_up_sync(0xFFFFFFFFu, (unsigned long long)v, 1);
    }
    __device__ std::uint64_t shfl64(std::uint64_t v, std::uint32_t src) {
        return __shfl_sync(0xFFFFFFFFu, (unsigned long long)v, int(src));
    }
    __device__ std::uint32_t ballot(bool pred) { return __ballot_sync(0xFFFFFFFFu, pred); }
    __device__ void sync() { __syncthreads(); }
    __device__ bool sync_or(bool pred) { return __syncthreads_or(pred) != 0; }
    // Shared words; ld32 is volatile, as the table's fill count is looked at while other warps add.
    __device__ std::uint32_t ld32(const unsigned int* p) { return *static_cast<const volatile unsigned int*>(p); }
    __device__ std::uint32_t ld16(const unsigned short* p) { return *p; }
    __device__ std::uint64_t ld64(const unsigned long long* p) { return *p; }
    __device__ void st32(unsigned int* p, std::uint32_t v) { *p = v; }
    __device__ void st16(unsigned short* p, unsigned short v) { *p = v; }
    __device__ void st64(unsigned long long* p, std::uint64_t v) { *p = v; }
    __device__ std::uint64_t cas64(unsigned long long* p, std::uint64_t expected, std::uint64_t desired) {
        return atomicCAS(p, (unsigned long long)expected, (unsigned long long)desired);
    }
    __device__ std::uint32_t add32(unsigned int* p, std::uint32_t v) { return atomicAdd(p, v); }
    __device__ std::uint64_t add64(unsigned long long* p, std::uint64_t v) {
        return atomicAdd(p, (unsigned long long)v);
    }
    __device__ void max32(unsigned int* p, std::uint32_t v) { atomicMax(p, v); }
    __device__ void put(std::uint64_t* key_at, std::uint64_t* contacts_at, std::uint64_t key, std::uint64_t n) {
        *key_at = key;
        *contacts_at = n;
    }
};

// Three blocks an SM, as the pictures' kernel: its table is the same 14 KiB of shared memory.
__global__ void __launch_bounds__(vadj::kThreads, 3) volume_adjacency_kernel(vadj::Params p, AdjOut o) {
    __shared__ vadj::Shared s;
    DeviceOps ops;
    vadj::block_program(ops, p, o, s, threadIdx.x);
}

}  // namespace

/// The edges of a width × height × depth label volume in device memory (strides in labels), on
/// @p stream (waited for); @p threads host threads fault the result's memory in.
std::vector<AdjacencyEdge> adjacency3d_on_device(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                                 std::int64_t depth, std::int64_t row_stride, std::int64_t slice_stride,
                                                 int connectivity, bool include_background, cudaStream_t stream,
                                                 int threads) {
    vadj::Params p;
    p.labels = labels;
    p.width = std::uint32_t(width);
    p.height = std::uint32_t(height);
    p.depth = std::uint32_t(depth);
    p.row_stride = row_stride;
    p.slice_stride = slice_stride;
    p.tiles_x = std::uint32_t((std::uint64_t(width) + kAdjTileW - 1) / kAdjTileW);
    p.tiles_y = std::uint32_t((std::uint64_t(height) + vadj::kTileH - 1) / vadj::kTileH);
    p.tiles = std::uint64_t(p.tiles_x) * p.tiles_y * std::uint64_t(depth);
    p.connectivity = connectivity;
    p.include_background = include_background;
    // The items a voxel of the last call: the next call's first guess (edges_of_items).
    static std::atomic<double> items_a_voxel{0.0};
    return edges_of_items(std::uint64_t(width) * std::uint64_t(height) * std::uint64_t(depth), items_a_voxel, stream,
                          threads, [&](const AdjOut& out) {
                              volume_adjacency_kernel<<<grid_for(reinterpret_cast<const void*>(volume_adjacency_kernel),
                                                                 vadj::kThreads, p.tiles),
                                                        vadj::kThreads, 0, stream>>>(p, out);
                              CCL_LAUNCHED("volume_adjacency_kernel");
                          });
}

}  // namespace cclabel::cuda::detail

namespace cclabel::detail {

std::vector<AdjacencyEdge> adjacency3d_cuda(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                            std::int64_t depth, std::int64_t row_stride, std::int64_t slice_stride,
                                            int connectivity, bool include_background, int threads) {
    if (!cuda_device_present()) throw Error("adjacency: backend cuda: no CUDA device is present");
    using namespace cclabel::cuda::detail;
    Stream stream;
    stream.create();
    const int copy_threads = cuda::host::copy_threads(threads);
    if (cuda::host::memory_kind(labels) == cuda::host::MemoryKind::Device)
        return adjacency3d_on_device(labels, width, height, depth, row_stride, slice_stride, connectivity,
                                     include_background, stream.s, copy_threads);
    const std::size_t row = std::size_t(width) * 4, slice = row * std::size_t(height);
    DeviceBuffer d(slice * std::size_t(depth), "the labels");
    if (slice_stride == row_stride * height || depth == 1) {  // slices back to back: height × depth rows
        cuda::host::copy_up(d.p, labels, std::size_t(row_stride) * 4, row, std::size_t(height * depth), stream.s,
                            copy_threads);
    } else {
        cuda::host::HostStager up;
        up.create(slice, copy_threads);
        for (std::int64_t z = 0; z < depth; ++z)
            up.upload(d.as<std::uint8_t>() + std::size_t(z) * slice, labels + z * slice_stride,
                      std::size_t(row_stride) * 4, row, std::size_t(height), stream.s);
        up.drain_all();
    }
    return adjacency3d_on_device(d.as<std::uint32_t>(), width, height, depth, width, width * height, connectivity,
                                 include_background, stream.s, copy_threads);
}

}  // namespace cclabel::detail
