// The region adjacency graph on the GPU: Count (items a segment, kernels/adjacency_bodies.cuh), an
// exclusive scan of the counts (CUB) for every segment's place, Emit (the (pair, count) items),
// a radix sort of the items by pair and a reduce-by-key that sums each pair's counts (CUB). The
// host waits once, for the number of items, to size the sort; then once more for the edges.
// Labels in host memory go up first through the staging ring (cuda::host::copy_up).
#include <cuda_runtime_api.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <string>
#include <vector>

#include "cclabel/adjacency.hpp"
#include "cclabel/error.hpp"
#include "core/adjacency_backends.hpp"
#include "core/backends.hpp"
#include "cuda/handles.hpp"
#include "cuda/host_stager.hpp"
#include "cuda/kernels/adjacency_bodies.cuh"
#include "cuda/pinned_pool.hpp"

namespace cclabel::cuda::detail {
namespace {

constexpr std::uint32_t kAdjThreads = 256;

__global__ void adjacency_count_kernel(AdjParams p, std::uint64_t* counts) {
    for (std::uint64_t s = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < p.segs;
         s += std::uint64_t(gridDim.x) * blockDim.x)
        counts[s] = segment_pairs(p, s, [](std::uint64_t, std::uint32_t) {});
}

__global__ void adjacency_emit_kernel(AdjParams p, const std::uint64_t* offsets, std::uint64_t* keys,
                                      std::uint64_t* contacts) {
    for (std::uint64_t s = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < p.segs;
         s += std::uint64_t(gridDim.x) * blockDim.x) {
        std::uint64_t at = offsets[s];
        segment_pairs(p, s, [&](std::uint64_t key, std::uint32_t n) {
            keys[at] = key;
            contacts[at] = n;
            ++at;
        });
    }
}

unsigned grid_for(std::uint64_t items) {
    const std::uint64_t blocks = (items + kAdjThreads - 1) / kAdjThreads;
    return unsigned(blocks < (1u << 20) ? (blocks ? blocks : 1) : (1u << 20));
}

}  // namespace

/// The edges of @p labels, a width × height image in device memory with rows @p stride labels
/// apart, on @p stream (waited for).
std::vector<AdjacencyEdge> adjacency_on_device(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                               std::int64_t stride, int connectivity, bool include_background,
                                               cudaStream_t stream) {
    AdjParams p;
    p.labels = labels;
    p.width = std::uint32_t(width);
    p.height = std::uint32_t(height);
    p.stride = stride;
    p.segs_x = std::uint32_t((std::uint64_t(width) + kAdjSeg - 1) / kAdjSeg);
    p.segs = std::uint64_t(p.segs_x) * std::uint64_t(height);
    p.connectivity = connectivity;
    p.include_background = include_background;

    // counts[0..segs) then one more 0, scanned in place: offsets, with the total at [segs].
    DeviceBuffer offsets((p.segs + 1) * sizeof(std::uint64_t), "the adjacency counts");
    auto* off = offsets.as<std::uint64_t>();
    CCL_CUDA(cudaMemsetAsync(off + p.segs, 0, sizeof(std::uint64_t), stream));
    adjacency_count_kernel<<<grid_for(p.segs), kAdjThreads, 0, stream>>>(p, off);
    CCL_LAUNCHED("adjacency_count_kernel");
    std::size_t scan_bytes = 0;
    CCL_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, off, off, std::int64_t(p.segs + 1), stream));
    DeviceBuffer scan_temp(scan_bytes, "the adjacency scan");
    CCL_CUDA(cub::DeviceScan::ExclusiveSum(scan_temp.p, scan_bytes, off, off, std::int64_t(p.segs + 1), stream));
    std::uint64_t items = 0;
    CCL_CUDA(cudaMemcpyAsync(&items, off + p.segs, sizeof items, cudaMemcpyDeviceToHost, stream));
    CCL_CUDA(cudaStreamSynchronize(stream));
    if (items == 0) return {};

    // Keys and counts, twice each (the sort's double buffers; the reduction writes into the spare).
    DeviceBuffer keys(2 * items * sizeof(std::uint64_t), "the adjacency pairs");
    DeviceBuffer vals(2 * items * sizeof(std::uint64_t), "the adjacency contacts");
    auto* k = keys.as<std::uint64_t>();
    auto* v = vals.as<std::uint64_t>();
    adjacency_emit_kernel<<<grid_for(p.segs), kAdjThreads, 0, stream>>>(p, off, k, v);
    CCL_LAUNCHED("adjacency_emit_kernel");
    cub::DoubleBuffer<std::uint64_t> kb(k, k + items), vb(v, v + items);
    constexpr int end_bit = 64;
    std::size_t sort_bytes = 0, reduce_bytes = 0;
    CCL_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, kb, vb, std::int64_t(items), 0, end_bit, stream));
    CCL_CUDA(cub::DeviceReduce::ReduceByKey(nullptr, reduce_bytes, k, k, v, v, static_cast<std::uint64_t*>(nullptr),
                                            ::cuda::std::plus<>{}, std::int64_t(items), stream));
    DeviceBuffer temp(std::max(sort_bytes, reduce_bytes) + sizeof(std::uint64_t), "the adjacency sort");
    CCL_CUDA(cub::DeviceRadixSort::SortPairs(temp.p, sort_bytes, kb, vb, std::int64_t(items), 0, end_bit, stream));
    // The sorted items are in kb/vb.Current(); the sums go to the other halves.
    std::uint64_t* sk = kb.Current();
    std::uint64_t* sv = vb.Current();
    std::uint64_t* uk = kb.Alternate();
    std::uint64_t* uv = vb.Alternate();
    DeviceBuffer runs(sizeof(std::uint64_t), "the adjacency edge count");
    CCL_CUDA(cub::DeviceReduce::ReduceByKey(temp.p, reduce_bytes, sk, uk, sv, uv, runs.as<std::uint64_t>(),
                                            ::cuda::std::plus<>{}, std::int64_t(items), stream));
    std::uint64_t edges_n = 0;
    CCL_CUDA(cudaMemcpyAsync(&edges_n, runs.p, sizeof edges_n, cudaMemcpyDeviceToHost, stream));
    CCL_CUDA(cudaStreamSynchronize(stream));
    std::vector<std::uint64_t> hk(edges_n), hv(edges_n);
    CCL_CUDA(cudaMemcpyAsync(hk.data(), uk, edges_n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream));
    CCL_CUDA(cudaMemcpyAsync(hv.data(), uv, edges_n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream));
    CCL_CUDA(cudaStreamSynchronize(stream));
    std::vector<AdjacencyEdge> edges(edges_n);
    for (std::uint64_t i = 0; i < edges_n; ++i) edges[i] = {std::uint32_t(hk[i] >> 32), std::uint32_t(hk[i]), hv[i]};
    return edges;
}

}  // namespace cclabel::cuda::detail

namespace cclabel::detail {

std::vector<AdjacencyEdge> adjacency_cuda(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                          std::int64_t stride, int connectivity, bool include_background,
                                          int threads) {
    if (!cuda_device_present()) throw Error("adjacency: backend cuda: no CUDA device is present");
    using namespace cclabel::cuda::detail;
    Stream stream;
    stream.create();
    if (cuda::host::memory_kind(labels) == cuda::host::MemoryKind::Device)
        return adjacency_on_device(labels, width, height, stride, connectivity, include_background, stream.s);
    const std::size_t row = std::size_t(width) * 4;
    DeviceBuffer d(row * std::size_t(height), "the labels");
    cuda::host::copy_up(d.p, labels, std::size_t(stride) * 4, row, std::size_t(height), stream.s,
                        cuda::host::copy_threads(threads));
    return adjacency_on_device(d.as<std::uint32_t>(), width, height, width, connectivity, include_background, stream.s);
}

}  // namespace cclabel::detail

namespace cclabel::detail {

bool on_device(const void* p) noexcept { return cuda::host::memory_kind(p) == cuda::host::MemoryKind::Device; }

}  // namespace cclabel::detail
