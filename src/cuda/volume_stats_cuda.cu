// GPU region statistics of label volumes (include/cclabel/cuda_volume_stats.hpp): kernels over the
// per-thread program of kernels/volume_stats_bodies.cuh. regions_volume_device enqueues, on the
// caller's stream: [the largest label, when no count is given] · Init (rows 0..N to the identity
// of their sums) · Stats (the block pass) · Finish (sums to rows, the value read at the first voxel).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "cclabel/cuda_volume_stats.hpp"
#include "cclabel/error.hpp"
#include "core/volume_request.hpp"
#include "cuda/handles.hpp"
#include "cuda/kernels/stats_atomics.cuh"
#include "cuda/kernels/volume_stats_bodies.cuh"

namespace cclabel::cuda::detail::vstats {

static_assert(sizeof(VolumeRegionStats) == kRowWords * 8, "VolumeRegionStats is thirteen 64-bit words");
static_assert(offsetof(VolumeRegionStats, voxels) == kVoxels * 8 && offsetof(VolumeRegionStats, x) == kX * 8 &&
                  offsetof(VolumeRegionStats, y) == kY * 8 && offsetof(VolumeRegionStats, z) == kZ * 8 &&
                  offsetof(VolumeRegionStats, width) == kWidth * 8 &&
                  offsetof(VolumeRegionStats, height) == kHeight * 8 &&
                  offsetof(VolumeRegionStats, depth) == kDepth * 8 && offsetof(VolumeRegionStats, cx) == kCx * 8 &&
                  offsetof(VolumeRegionStats, cy) == kCy * 8 && offsetof(VolumeRegionStats, cz) == kCz * 8 &&
                  offsetof(VolumeRegionStats, surface) == kSurface * 8 &&
                  offsetof(VolumeRegionStats, value) == kValue01 * 8,
              "RowWord matches VolumeRegionStats");

namespace {

constexpr std::size_t kWorkspace = 256;  // [0]: the largest label, when no count is given
constexpr std::uint32_t kGridThreads = 256;
constexpr std::uint64_t kMaxStrideBlocks = 8192;
constexpr std::uint64_t kTargetBlocks = 4096;
constexpr std::uint64_t kMaxTilesPerBlock = 32;  // keeps a block's counts within the table's 32 bits
static_assert(kMaxTilesPerBlock * kThreads * kPpt <= 0xFFFFFFFFull, "per-block counts fit 32 bits");

unsigned stride_blocks(std::uint64_t items) {
    return unsigned(std::clamp<std::uint64_t>((items + kGridThreads - 1) / kGridThreads, 1, kMaxStrideBlocks));
}

/// The Ops of volume_stats_bodies.cuh on the GPU: kernels/stats_atomics.cuh's, and the plain loads,
/// stores and barrier the volume's bodies use besides.
struct DeviceOps : StatsAtomics {
    __device__ std::uint64_t ld64(const unsigned long long* p) {
        return *static_cast<const volatile unsigned long long*>(p);
    }
    __device__ void st(std::uint32_t* p, std::uint32_t v) { *p = v; }
    __device__ void st64(unsigned long long* p, std::uint64_t v) { *p = v; }
    __device__ void sync() { __syncthreads(); }
};

__global__ void init_kernel(Params g) {
    const std::uint64_t rows = rows_of(g);
    for (std::uint64_t l = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; l < rows;
         l += std::uint64_t(gridDim.x) * blockDim.x)
        row_init(g.rows + l * kRowWords);
}

__global__ void __launch_bounds__(kThreads) stats_kernel(Params g) {
    __shared__ Shared s;
    DeviceOps ops;
    block_program(ops, g, s, threadIdx.x, blockIdx.x);
}

__global__ void finish_kernel(Params g) {
    const std::uint64_t rows = rows_of(g);
    for (std::uint64_t l = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; l < rows;
         l += std::uint64_t(gridDim.x) * blockDim.x)
        finish_row(g, l);
}

}  // namespace
}  // namespace cclabel::cuda::detail::vstats

namespace cclabel::cuda {

void regions_volume_device(void* workspace, std::size_t& workspace_bytes, const VolumeView& volume,
                           const std::uint32_t* labels, const std::uint32_t* count, std::uint64_t capacity,
                           VolumeRegionStats* stats, const Options& options, cudaStream_t stream) {
    using namespace detail::vstats;
    using detail::max_label_kernel;
    static const std::uint32_t no_labels = 0;
    const cclabel::detail::VolumeRequest r =
        cclabel::detail::make_volume_request(volume, workspace ? labels : &no_labels, options);
    if (!workspace) {
        workspace_bytes = kWorkspace;
        return;
    }
    if (workspace_bytes < kWorkspace)
        throw Error("regions_volume_device: workspace of " + std::to_string(workspace_bytes) + " bytes, " +
                    std::to_string(kWorkspace) + " needed");
    if (capacity == 0) throw Error("regions_volume_device: capacity must be at least 1 row");
    if (!stats) throw Error("regions_volume_device: the stats pointer is null");

    Params g;
    g.labels = labels;
    g.width = std::uint32_t(r.width);
    g.height = std::uint32_t(r.height);
    g.depth = std::uint32_t(r.depth);
    g.voxels = r.voxels();
    g.capacity = capacity;
    g.rows = reinterpret_cast<unsigned long long*>(stats);
    g.data = r.data;
    g.row_stride = r.row_stride;
    g.slice_stride = r.slice_stride;
    g.format = r.format;
    if (!count) {
        auto* max_word = static_cast<std::uint32_t*>(workspace);
        CCL_CUDA(cudaMemsetAsync(max_word, 0, sizeof(std::uint32_t), stream));
        if (g.voxels != 0) {
            max_label_kernel<<<stride_blocks(g.voxels), kGridThreads, 0, stream>>>(labels, g.voxels, max_word);
            CCL_LAUNCHED("max_label_kernel");
        }
        count = max_word;
    }
    g.count = count;
    init_kernel<<<stride_blocks(capacity), kGridThreads, 0, stream>>>(g);
    CCL_LAUNCHED("init_kernel");
    if (g.voxels != 0) {
        // Several tiles a block once there are thousands of blocks: a label covering the volume
        // then costs a flush per block, not per tile, and the grid still fills the GPU.
        const std::uint64_t tiles = tiles_of(g);  // ≤ 2^21
        g.tiles_per_block = std::uint32_t(std::clamp<std::uint64_t>(tiles / kTargetBlocks, 1, kMaxTilesPerBlock));
        stats_kernel<<<unsigned((tiles + g.tiles_per_block - 1) / g.tiles_per_block), kThreads, 0, stream>>>(g);
        CCL_LAUNCHED("stats_kernel");
    }
    finish_kernel<<<stride_blocks(capacity), kGridThreads, 0, stream>>>(g);
    CCL_LAUNCHED("finish_kernel");
}

}  // namespace cclabel::cuda
