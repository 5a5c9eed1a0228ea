// GPU region statistics and filters: kernels over the per-thread programs of
// kernels/stats_bodies.cuh, the device API (include/cclabel/cuda_stats.hpp) and the host API's
// CUDA paths (regions, remove_small, keep_largest and label-with-statistics for host memory).
//
// regions_device enqueues, on the caller's stream: [the largest label, when no count is given]
// Init (rows 0..N to the identity of their sums) · Stats (the block pass of stats_bodies.cuh) ·
// Finish (sums to rows). The filters run Init and Stats into a workspace copy of the rows, sort
// the kept labels by their first pixel (CUB radix sort; keep_largest first sorts by area), map
// every label to its rank and rewrite the labels in place.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cub/device/device_radix_sort.cuh>
#include <string>
#include <vector>

#include "cclabel/cuda.hpp"
#include "cclabel/cuda_stats.hpp"
#include "cclabel/error.hpp"
#include "core/backends.hpp"
#include "core/request.hpp"
#include "core/stats_backends.hpp"
#include "cuda/device_keys.hpp"
#include "cuda/device_cache.hpp"
#include "cuda/handles.hpp"
#include "cuda/host_stager.hpp"
#include "cuda/kernels/stats_atomics.cuh"
#include "cuda/kernels/stats_bodies.cuh"

namespace cclabel::cuda::detail {

static_assert(sizeof(RegionStats) == kRowWords * 8, "RegionStats is ten 64-bit words");
static_assert(offsetof(RegionStats, area) == kArea * 8 && offsetof(RegionStats, x) == kX * 8 &&
                  offsetof(RegionStats, y) == kY * 8 && offsetof(RegionStats, width) == kWidth * 8 &&
                  offsetof(RegionStats, height) == kHeight * 8 && offsetof(RegionStats, cx) == kCx * 8 &&
                  offsetof(RegionStats, cy) == kCy * 8 && offsetof(RegionStats, perimeter) == kPerim * 8 &&
                  offsetof(RegionStats, value) == kValue01 * 8,
              "RowWord matches RegionStats");

namespace {


constexpr std::size_t kAlign = 256;
constexpr std::uint32_t kGridThreads = 256;
constexpr std::uint64_t kMaxStrideBlocks = 8192;  // grid-stride kernels over rows or pixels
constexpr std::uint32_t kNoKey32 = 0xFFFFFFFFu;
constexpr std::uint64_t kNoKey64 = 0xFFFFFFFFFFFFFFFFull;
constexpr std::uint64_t kStatsTargetBlocks = 4096;
constexpr std::uint64_t kStatsMaxTilesPerBlock = 32;

std::size_t align_up(std::size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

unsigned stride_blocks(std::uint64_t items) {
    return unsigned(std::clamp<std::uint64_t>((items + kGridThreads - 1) / kGridThreads, 1, kMaxStrideBlocks));
}

/// The Ops of stats_bodies.cuh on the GPU (kernels/stats_atomics.cuh).
using DeviceStatsOps = StatsAtomics;

__global__ void stats_init_kernel(StatsParams g) {
    const std::uint64_t rows = stats_rows(g);
    for (std::uint64_t l = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; l < rows;
         l += std::uint64_t(gridDim.x) * blockDim.x)
        row_init(g.rows + l * kRowWords);
}

/// The block pass over @p tiles_per_block consecutive tiles, the table kept across them.
__global__ void __launch_bounds__(kStatsThreads) stats_kernel(StatsParams g, std::uint32_t tiles_per_block) {
    __shared__ StatsShared s;
    __shared__ std::uint32_t warp_sum[kStatsThreads / 32], warp_max[kStatsThreads / 32];
    DeviceStatsOps ops;
    const std::uint32_t t = threadIdx.x, lane = t & 31u, warp = t / 32u;
    const auto tiles = std::uint32_t((g.pixels + kStatsTile - 1) / kStatsTile);  // < 2^21
    const std::uint32_t first = blockIdx.x * tiles_per_block;
    const std::uint32_t last = first + tiles_per_block < tiles ? first + tiles_per_block : tiles;
    stats_clear(g, s, t);
    for (std::uint32_t b = first; b < last; ++b) {
        stats_stage(ops, g, s, t, b);
        __syncthreads();
        const StatsEnds e = stats_runs(ops, g, s, t, b);
        stats_chain_head(s, t, e);
        // Chain: inclusive sum of the pieces' perimeters and exclusive max of the head marks.
        std::uint32_t sum = chain_piece_perim(e), mark = chain_head_mark(e, t);
        for (std::uint32_t off = 1; off < 32; off *= 2) {
            const std::uint32_t a = __shfl_up_sync(0xFFFFFFFFu, sum, off), m = __shfl_up_sync(0xFFFFFFFFu, mark, off);
            if (lane >= off) {
                sum += a;
                mark = max(mark, m);
            }
        }
        std::uint32_t mark_before = __shfl_up_sync(0xFFFFFFFFu, mark, 1);
        if (lane == 0) mark_before = 0;
        if (lane == 31) {
            warp_sum[warp] = sum;
            warp_max[warp] = mark;
        }
        __syncthreads();
        for (std::uint32_t w = 0; w < warp; ++w) {
            sum += warp_sum[w];
            mark_before = max(mark_before, warp_max[w]);
        }
        stats_chain_prefix(s, t, sum);
        __syncthreads();
        stats_chain_close(ops, g, s, e, sum, mark_before);
        __syncthreads();
        if (b + 1 == last) {
            stats_flush(ops, g, s, t);
        } else if (s.used > kStatsFlushAt) {
            stats_flush(ops, g, s, t);
            __syncthreads();
            stats_clear(g, s, t);
            __syncthreads();
        }
    }
}

__global__ void stats_finish_kernel(StatsParams g) {
    const std::uint64_t rows = stats_rows(g);
    for (std::uint64_t l = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; l < rows;
         l += std::uint64_t(gridDim.x) * blockDim.x)
        stats_finish_row(g, l);
}

CCL_HD std::uint64_t row_area(const StatsParams& g, std::uint64_t l) { return g.rows[l * kRowWords + kArea]; }
__device__ std::uint32_t row_first(const StatsParams& g, std::uint64_t l) {
    return reinterpret_cast<const std::uint32_t*>(g.rows + l * kRowWords + kValue01)[0];
}

/// remove_small: the first pixel of every kept label (else kNoKey32), and the kept count.
__global__ void small_keys_kernel(StatsParams g, std::uint64_t min_area, std::uint32_t* keys, std::uint32_t* vals,
                                  std::uint32_t* kept) {
    const std::uint64_t rows = stats_rows(g);
    for (std::uint64_t l = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; l < g.capacity;
         l += std::uint64_t(gridDim.x) * blockDim.x) {
        const std::uint64_t area = l < rows ? row_area(g, l) : 0;
        const bool keep = l >= 1 && area != 0 && area >= min_area;
        keys[l] = keep ? row_first(g, l) : kNoKey32;
        vals[l] = std::uint32_t(l);
        if (keep) atomicAdd(kept, 1u);
    }
}

/// keep_largest, step 1: larger area first, then the earlier first pixel.
__global__ void largest_keys_kernel(StatsParams g, unsigned long long* keys, std::uint32_t* vals) {
    const std::uint64_t rows = stats_rows(g);
    for (std::uint64_t l = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; l < g.capacity;
         l += std::uint64_t(gridDim.x) * blockDim.x) {
        const std::uint64_t area = l < rows ? row_area(g, l) : 0;
        keys[l] = l >= 1 && area != 0 ? ((0xFFFFFFFFull - area) << 32) | row_first(g, l) : kNoKey64;
        vals[l] = std::uint32_t(l);
    }
}

/// keep_largest, step 2: the first k of the sorted labels are kept; keys by first pixel as in
/// small_keys_kernel.
__global__ void largest_select_kernel(StatsParams g, const unsigned long long* sorted_keys,
                                      const std::uint32_t* sorted_vals, std::uint32_t k, std::uint32_t* keys,
                                      std::uint32_t* vals, std::uint32_t* kept) {
    for (std::uint64_t r = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < g.capacity;
         r += std::uint64_t(gridDim.x) * blockDim.x) {
        const std::uint32_t l = sorted_vals[r];
        const bool keep = r < k && sorted_keys[r] != kNoKey64;
        keys[l] = keep ? row_first(g, l) : kNoKey32;
        vals[l] = l;
        if (keep) atomicAdd(kept, 1u);
    }
}

/// Labels sorted by first pixel: the kept ones are numbered 1..M in that order, the others 0.
__global__ void rank_kernel(std::uint64_t capacity, const std::uint32_t* sorted_keys, const std::uint32_t* sorted_vals,
                            std::uint32_t* map) {
    for (std::uint64_t r = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < capacity;
         r += std::uint64_t(gridDim.x) * blockDim.x)
        map[sorted_vals[r]] = sorted_keys[r] != kNoKey32 ? std::uint32_t(r + 1) : 0u;
}

__global__ void relabel_kernel(std::uint32_t* labels, std::uint64_t pixels, const std::uint32_t* map,
                               std::uint64_t capacity) {
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
         i += std::uint64_t(gridDim.x) * blockDim.x) {
        const std::uint32_t l = labels[i];
        labels[i] = l < capacity ? map[l] : 0u;
    }
}

/// Enqueues the largest label of @p labels into @p out (device word, zeroed here).
void launch_max_label(const std::uint32_t* labels, std::uint64_t pixels, std::uint32_t* out, cudaStream_t stream) {
    CCL_CUDA(cudaMemsetAsync(out, 0, sizeof(std::uint32_t), stream));
    if (pixels == 0) return;
    max_label_kernel<<<stride_blocks(pixels), kGridThreads, 0, stream>>>(labels, pixels, out);
    CCL_LAUNCHED("max_label_kernel");
}

/// Init and Stats into g.rows (the accumulating form of the rows).
void launch_sums(const StatsParams& g, cudaStream_t stream) {
    stats_init_kernel<<<stride_blocks(g.capacity), kGridThreads, 0, stream>>>(g);
    CCL_LAUNCHED("stats_init_kernel");
    if (g.pixels == 0) return;
    // Several tiles a block once there are thousands of blocks: a label covering the picture then
    // costs a flush per block, not per tile, and the grid still fills the GPU.
    const std::uint64_t tiles = (g.pixels + kStatsTile - 1) / kStatsTile;  // ≤ 2^21
    const auto per_block = std::uint32_t(std::clamp<std::uint64_t>(tiles / kStatsTargetBlocks, 1, kStatsMaxTilesPerBlock));
    stats_kernel<<<unsigned((tiles + per_block - 1) / per_block), kStatsThreads, 0, stream>>>(g, per_block);
    CCL_LAUNCHED("stats_kernel");
}

StatsParams params_for(const cclabel::detail::Request& r, const std::uint32_t* labels, std::uint64_t capacity,
                       RegionStats* rows) {
    StatsParams g;
    g.labels = labels;
    g.width = std::uint32_t(r.width);
    g.height = std::uint32_t(r.height);
    g.pixels = r.pixels();
    g.connectivity = r.connectivity;
    g.capacity = capacity;
    g.rows = reinterpret_cast<unsigned long long*>(rows);
    g.img = r.data;
    g.stride = r.stride;
    g.format = r.format;
    return g;
}

/// Validates a label-image-only call (the filters) as cclabel::remove_small does.
std::uint64_t filter_pixels(const std::uint32_t* labels, std::int64_t width, std::int64_t height, bool query) {
    return cclabel::detail::filter_pixels(query ? nullptr : labels, width, height, /*allow_null=*/query);
}

struct FilterLayout {
    std::size_t rows = 0, keys_a = 0, keys_b = 0, vals_a = 0, vals_b = 0, map = 0, words = 0, temp = 0;
    std::size_t temp_bytes = 0, total = 0;
};

FilterLayout filter_layout(std::uint64_t capacity, cudaStream_t stream) {
    std::size_t t64 = 0, t32 = 0;
    CCL_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, t64, static_cast<const unsigned long long*>(nullptr),
                                                   static_cast<unsigned long long*>(nullptr),
                                                   static_cast<const std::uint32_t*>(nullptr),
                                                   static_cast<std::uint32_t*>(nullptr), capacity, 0, 64, stream));
    CCL_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, t32, static_cast<const std::uint32_t*>(nullptr),
                                                   static_cast<std::uint32_t*>(nullptr),
                                                   static_cast<const std::uint32_t*>(nullptr),
                                                   static_cast<std::uint32_t*>(nullptr), capacity, 0, 32, stream));
    FilterLayout f;
    std::size_t o = 0;
    auto take = [&](std::size_t& at, std::size_t bytes) {
        at = o;
        o = align_up(o + bytes);
    };
    take(f.rows, capacity * sizeof(RegionStats));
    take(f.keys_a, capacity * 8);
    take(f.keys_b, capacity * 8);
    take(f.vals_a, capacity * 4);
    take(f.vals_b, capacity * 4);
    take(f.map, capacity * 4);
    take(f.words, 16);
    f.temp_bytes = std::max(t64, t32);
    take(f.temp, f.temp_bytes);
    f.total = std::max<std::size_t>(o, kAlign);
    return f;
}

/// The shared body of remove_small_device (k == 0 unused) and keep_largest_device.
void filter_device(bool largest, void* workspace, std::size_t& workspace_bytes, std::uint32_t* labels,
                   std::int64_t width, std::int64_t height, const std::uint32_t* count, std::uint64_t capacity,
                   std::uint64_t min_area, std::uint32_t k, std::uint32_t* new_count, cudaStream_t stream) {
    const char* name = largest ? "keep_largest_device" : "remove_small_device";
    const std::uint64_t pixels = filter_pixels(labels, width, height, workspace == nullptr);
    if (capacity == 0) throw Error(std::string(name) + ": capacity must be at least 1 row");
    if (capacity > pixels + 1)
        capacity = pixels + 1;  // no label image of this size has more rows; keeps the workspace bounded
    const FilterLayout f = filter_layout(capacity, stream);
    if (workspace == nullptr) {
        workspace_bytes = f.total;
        return;
    }
    if (!new_count) throw Error(std::string(name) + ": the new_count pointer is null");
    if (workspace_bytes < f.total)
        throw Error(std::string(name) + ": workspace of " + std::to_string(workspace_bytes) + " bytes, " +
                    std::to_string(f.total) + " needed");
    auto* ws = static_cast<std::uint8_t*>(workspace);
    auto* words = reinterpret_cast<std::uint32_t*>(ws + f.words);  // [0] largest label, [1] kept count
    CCL_CUDA(cudaMemsetAsync(words, 0, 16, stream));
    if (pixels == 0) {
        CCL_CUDA(cudaMemsetAsync(new_count, 0, 4, stream));
        return;
    }
    if (!count) {
        launch_max_label(labels, pixels, words, stream);
        count = words;
    }
    StatsParams g;
    g.labels = labels;
    g.width = std::uint32_t(width);
    g.height = std::uint32_t(height);
    g.pixels = pixels;
    g.count = count;
    g.capacity = capacity;
    g.rows = reinterpret_cast<unsigned long long*>(ws + f.rows);
    launch_sums(g, stream);

    auto* k32a = reinterpret_cast<std::uint32_t*>(ws + f.keys_a);
    auto* k32b = reinterpret_cast<std::uint32_t*>(ws + f.keys_b);
    auto* va = reinterpret_cast<std::uint32_t*>(ws + f.vals_a);
    auto* vb = reinterpret_cast<std::uint32_t*>(ws + f.vals_b);
    auto* map = reinterpret_cast<std::uint32_t*>(ws + f.map);
    void* temp = ws + f.temp;
    const unsigned blocks = stride_blocks(capacity);
    if (!largest) {
        small_keys_kernel<<<blocks, kGridThreads, 0, stream>>>(g, min_area, k32a, va, words + 1);
        CCL_LAUNCHED("small_keys_kernel");
    } else {
        auto* k64a = reinterpret_cast<unsigned long long*>(ws + f.keys_a);
        auto* k64b = reinterpret_cast<unsigned long long*>(ws + f.keys_b);
        largest_keys_kernel<<<blocks, kGridThreads, 0, stream>>>(g, k64a, va);
        CCL_LAUNCHED("largest_keys_kernel");
        std::size_t tb = f.temp_bytes;
        CCL_CUDA(cub::DeviceRadixSort::SortPairs(temp, tb, k64a, k64b, va, vb, capacity, 0, 64, stream));
        // k64a and va are free again: the keys by first pixel go there.
        largest_select_kernel<<<blocks, kGridThreads, 0, stream>>>(g, k64b, vb, k, k32a, va, words + 1);
        CCL_LAUNCHED("largest_select_kernel");
    }
    std::size_t tb = f.temp_bytes;
    CCL_CUDA(cub::DeviceRadixSort::SortPairs(temp, tb, k32a, k32b, va, vb, capacity, 0, 32, stream));
    rank_kernel<<<blocks, kGridThreads, 0, stream>>>(capacity, k32b, vb, map);
    CCL_LAUNCHED("rank_kernel");
    relabel_kernel<<<stride_blocks(pixels), kGridThreads, 0, stream>>>(labels, pixels, map, capacity);
    CCL_LAUNCHED("relabel_kernel");
    CCL_CUDA(cudaMemcpyAsync(new_count, words + 1, 4, cudaMemcpyDeviceToDevice, stream));
}

}  // namespace
}  // namespace cclabel::cuda::detail

namespace cclabel::cuda {

void regions_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image,
                    const std::uint32_t* labels, const std::uint32_t* count, std::uint64_t capacity,
                    RegionStats* stats, const Options& options, cudaStream_t stream) {
    using namespace detail;
    static const std::uint32_t no_labels = 0;
    const cclabel::detail::Request r =
        cclabel::detail::make_request(image, workspace ? labels : &no_labels, options);
    constexpr std::size_t need = kAlign;  // [0] the largest label, when no count is given
    if (!workspace) {
        workspace_bytes = need;
        return;
    }
    if (workspace_bytes < need)
        throw Error("regions_device: workspace of " + std::to_string(workspace_bytes) + " bytes, " +
                    std::to_string(need) + " needed");
    if (capacity == 0) throw Error("regions_device: capacity must be at least 1 row");
    if (!stats) throw Error("regions_device: the stats pointer is null");
    StatsParams g = params_for(r, labels, capacity, stats);
    if (!count) {
        auto* max_word = static_cast<std::uint32_t*>(workspace);
        launch_max_label(labels, g.pixels, max_word, stream);
        count = max_word;
    }
    g.count = count;
    launch_sums(g, stream);
    stats_finish_kernel<<<stride_blocks(capacity), kGridThreads, 0, stream>>>(g);
    CCL_LAUNCHED("stats_finish_kernel");
    canonical_row_values(r.format, stats, count, capacity, stream);  // typed floats (device_keys.hpp)
}

void label_regions_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image,
                          std::uint32_t* labels, std::uint32_t* count, std::uint64_t capacity, RegionStats* stats,
                          const Options& options, cudaStream_t stream) {
    std::size_t label_bytes = 0, stats_bytes = 0;
    label_device(nullptr, label_bytes, image, labels, count, options, stream);
    regions_device(nullptr, stats_bytes, image, labels, count, capacity, stats, options, stream);
    const std::size_t need = std::max(label_bytes, stats_bytes);  // one after the other: shared
    if (!workspace) {
        workspace_bytes = need;
        return;
    }
    if (!count) throw Error("label_regions_device: the count pointer is null");
    if (workspace_bytes < need)
        throw Error("label_regions_device: workspace of " + std::to_string(workspace_bytes) + " bytes, " +
                    std::to_string(need) + " needed");
    label_device(workspace, workspace_bytes, image, labels, count, options, stream);
    regions_device(workspace, workspace_bytes, image, labels, count, capacity, stats, options, stream);
}

void remove_small_device(void* workspace, std::size_t& workspace_bytes, std::uint32_t* labels, std::int64_t width,
                         std::int64_t height, const std::uint32_t* count, std::uint64_t capacity,
                         std::uint64_t min_area, std::uint32_t* new_count, cudaStream_t stream) {
    detail::filter_device(false, workspace, workspace_bytes, labels, width, height, count, capacity, min_area, 0,
                          new_count, stream);
}

void keep_largest_device(void* workspace, std::size_t& workspace_bytes, std::uint32_t* labels, std::int64_t width,
                         std::int64_t height, const std::uint32_t* count, std::uint64_t capacity, std::uint32_t k,
                         std::uint32_t* new_count, cudaStream_t stream) {
    detail::filter_device(true, workspace, workspace_bytes, labels, width, height, count, capacity, 0, k, new_count,
                          stream);
}

}  // namespace cclabel::cuda

// --- the host API's CUDA paths --------------------------------------------------------------------
namespace cclabel::detail {
namespace {

using cuda::detail::check;

using cuda::detail::CachedDevice;  // kept for the next call (cuda/device_cache.hpp)
using cuda::detail::Stream;

void require_device() {
    if (!cuda_device_present()) cuda_stats_unavailable();
}

/// The picture, packed, in device memory.
struct DevicePicture {
    CachedDevice mem;
    ImageView view;
    DevicePicture(const Request& r, cudaStream_t s)
        : mem(std::size_t(r.width) * std::size_t(bytes_per_pixel(r.format)) * std::size_t(r.height), "the picture", s) {
        const std::size_t row = std::size_t(r.width) * std::size_t(bytes_per_pixel(r.format));
        view = ImageView{mem.p, r.width, r.height, std::int64_t(row), r.format};
        cuda::host::copy_up(mem.p, r.data, std::size_t(r.stride), row, std::size_t(r.height), s,
                            cuda::host::copy_threads(0));
    }
};

/// The largest label on the device, checked as the CPU checks it.
std::uint32_t checked_max_label(const std::uint32_t* d_labels, std::uint64_t pixels, std::uint32_t* d_word,
                                const std::string& picture, cudaStream_t s) {
    cuda::detail::launch_max_label(d_labels, pixels, d_word, s);
    std::uint32_t n = 0;
    check(cudaMemcpyAsync(&n, d_word, 4, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (largest label)");
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    if (n > pixels)
        throw Error("label value " + std::to_string(n) + " exceeds the number of pixels (" + std::to_string(pixels) +
                    "): not a label image of this " + picture);
    return n;
}

}  // namespace

void cuda_stats_unavailable() { throw Error("backend cuda: no CUDA device is present"); }

std::vector<RegionStats> regions_cuda_host(const ImageView& image, const std::uint32_t* labels, const Options& options) {
    require_device();
    const Request r = make_request(image, labels, options);
    const std::uint64_t pixels = r.pixels();
    Stream stream;
    stream.create();
    DevicePicture pic(r, stream.s);
    CachedDevice d_labels(pixels * 4, "the labels", stream.s);
    cuda::host::copy_up(d_labels.p, labels, pixels * 4, pixels * 4, 1, stream.s, cuda::host::copy_threads(options.threads));
    CachedDevice d_word(4, "the largest label", stream.s);
    const std::uint32_t n = checked_max_label(d_labels.as<std::uint32_t>(), pixels, d_word.as<std::uint32_t>(),
                                              std::to_string(r.width) + " x " + std::to_string(r.height) + " picture",
                                              stream.s);
    std::vector<RegionStats> out(std::size_t(n) + 1);
    CachedDevice d_rows(out.size() * sizeof(RegionStats), "the statistics", stream.s);
    std::size_t ws_bytes = 0;
    cuda::regions_device(nullptr, ws_bytes, pic.view, d_labels.as<std::uint32_t>(), d_word.as<std::uint32_t>(),
                         out.size(), d_rows.as<RegionStats>(), options, stream.s);
    CachedDevice ws(ws_bytes, "the workspace", stream.s);
    cuda::regions_device(ws.p, ws_bytes, pic.view, d_labels.as<std::uint32_t>(), d_word.as<std::uint32_t>(),
                         out.size(), d_rows.as<RegionStats>(), options, stream.s);
    check(cudaMemcpyAsync(out.data(), d_rows.p, out.size() * sizeof(RegionStats), cudaMemcpyDeviceToHost, stream.s),
          "cudaMemcpyAsync (statistics)");
    check(cudaStreamSynchronize(stream.s), "cudaStreamSynchronize");
    return out;
}

std::uint32_t label_regions_cuda_host(const ImageView& image, std::uint32_t* out, const Options& options,
                                      std::vector<RegionStats>& stats) {
    require_device();
    const Request r = make_request(image, out, options);
    const std::uint64_t pixels = r.pixels();
    Stream stream;
    stream.create();
    DevicePicture pic(r, stream.s);
    CachedDevice d_labels(pixels * 4, "the labels", stream.s);
    CachedDevice d_count(4, "the count", stream.s);
    std::size_t label_bytes = 0;
    cuda::label_device(nullptr, label_bytes, pic.view, d_labels.as<std::uint32_t>(), d_count.as<std::uint32_t>(),
                       options, stream.s);
    std::size_t stats_bytes = 0;
    cuda::regions_device(nullptr, stats_bytes, pic.view, nullptr, nullptr, 1, nullptr, options, stream.s);
    std::size_t ws_bytes = std::max(label_bytes, stats_bytes);  // one after the other: one workspace
    CachedDevice ws(ws_bytes, "the workspace", stream.s);
    cuda::label_device(ws.p, ws_bytes, pic.view, d_labels.as<std::uint32_t>(), d_count.as<std::uint32_t>(), options,
                       stream.s);
    // The rows are allocated for N: the one wait of the call before the copies back.
    std::uint32_t n = 0;
    check(cudaMemcpyAsync(&n, d_count.p, 4, cudaMemcpyDeviceToHost, stream.s), "cudaMemcpyAsync (count)");
    check(cudaStreamSynchronize(stream.s), "cudaStreamSynchronize");
    stats.assign(std::size_t(n) + 1, RegionStats{});
    CachedDevice d_rows(stats.size() * sizeof(RegionStats), "the statistics", stream.s);
    cuda::regions_device(ws.p, ws_bytes, pic.view, d_labels.as<std::uint32_t>(), d_count.as<std::uint32_t>(),
                         stats.size(), d_rows.as<RegionStats>(), options, stream.s);
    cuda::host::copy_down(out, pixels * 4, d_labels.p, pixels * 4, 1, stream.s, cuda::host::copy_threads(options.threads));
    check(cudaMemcpyAsync(stats.data(), d_rows.p, stats.size() * sizeof(RegionStats), cudaMemcpyDeviceToHost,
                          stream.s),
          "cudaMemcpyAsync (statistics)");
    check(cudaStreamSynchronize(stream.s), "cudaStreamSynchronize");
    return n;
}

std::uint32_t filter_cuda_host(std::uint32_t* labels, std::int64_t width, std::int64_t height, bool largest,
                               std::uint64_t min_area, std::uint32_t k) {
    require_device();
    const std::uint64_t pixels = filter_pixels(labels, width, height, false);
    if (pixels == 0) return 0;
    Stream stream;
    stream.create();
    CachedDevice d_labels(pixels * 4, "the labels", stream.s);
    cuda::host::copy_up(d_labels.p, labels, pixels * 4, pixels * 4, 1, stream.s, cuda::host::copy_threads(0));
    CachedDevice d_words(8, "the counts", stream.s);
    auto* d_n = d_words.as<std::uint32_t>();
    const std::uint32_t n = checked_max_label(d_labels.as<std::uint32_t>(), pixels, d_n, "size", stream.s);
    std::size_t ws_bytes = 0;
    auto run = [&](void* ws) {
        if (largest)
            cuda::keep_largest_device(ws, ws_bytes, d_labels.as<std::uint32_t>(), width, height, d_n,
                                      std::uint64_t(n) + 1, k, d_n + 1, stream.s);
        else
            cuda::remove_small_device(ws, ws_bytes, d_labels.as<std::uint32_t>(), width, height, d_n,
                                      std::uint64_t(n) + 1, min_area, d_n + 1, stream.s);
    };
    run(nullptr);
    CachedDevice ws(ws_bytes, "the workspace", stream.s);
    run(ws.p);
    std::uint32_t m = 0;
    check(cudaMemcpyAsync(&m, d_n + 1, 4, cudaMemcpyDeviceToHost, stream.s), "cudaMemcpyAsync (count)");
    cuda::host::copy_down(labels, pixels * 4, d_labels.p, pixels * 4, 1, stream.s, cuda::host::copy_threads(0));
    check(cudaStreamSynchronize(stream.s), "cudaStreamSynchronize");
    return m;
}

}  // namespace cclabel::detail
