// The region adjacency graph on the GPU: one kernel reads the labels once, a tile a block, and
// puts each tile's pairs with their contact counts out (kernels/adjacency_bodies.cuh); a CUB radix
// sort of the items by pair (over the bits the largest smaller label needs) and a reduce-by-key
// sum them. The host waits once for the number of items (to size the sort, and to run the kernel
// again into a larger buffer when its first guess was short: noise, where every tile holds
// thousands of pairs), and once for the edges.
// Labels in host memory go up first through the staging ring (cuda::host::copy_up).
// The host's half after the tile kernel (edges_of_items, adjacency_items.hpp) also serves the
// volumes' kernel (adjacency3d_cuda.cu).
#include <cuda_runtime_api.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "cclabel/adjacency.hpp"
#include "cclabel/error.hpp"
#include "core/adjacency_backends.hpp"
#include "core/backends.hpp"
#include "core/env_list.hpp"
#include "core/huge_pages.hpp"
#include "core/parallel_for.hpp"
#include "cuda/adjacency_items.hpp"
#include "cuda/handles.hpp"
#include "cuda/host_stager.hpp"
#include "cuda/kernels/adjacency_bodies.cuh"
#include "cuda/pinned_pool.hpp"

namespace cclabel::cuda::detail {
namespace {

constexpr std::uint32_t kAdjThreads = 256;

/// Tiles a block takes at a time, from a counter: consecutive tiles (left to right, then down),
/// so that the pairs of a boundary that crosses them meet in the block's table, and few enough
/// that the blocks finish together on a picture whose boundaries crowd into one part.
constexpr std::uint32_t kAdjChunk = 16;

/// AdjacencyEdge's layout, for the device.
struct PackedEdge {
    std::uint32_t a, b;
    std::uint64_t contacts;
};
static_assert(sizeof(PackedEdge) == sizeof(AdjacencyEdge) && offsetof(AdjacencyEdge, b) == 4 &&
              offsetof(AdjacencyEdge, contacts) == 8);

__global__ void pack_edges_kernel(const std::uint64_t* keys, const std::uint64_t* contacts, std::uint64_t n,
                                  PackedEdge* out) {
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::uint64_t(gridDim.x) * blockDim.x)
        out[i] = PackedEdge{std::uint32_t(keys[i] >> 32), std::uint32_t(keys[i]), contacts[i]};
}

__device__ __forceinline__ void put_item(const AdjOut& o, std::uint64_t at, std::uint64_t key, std::uint64_t n) {
    if (at < o.capacity) {
        o.keys[at] = key;
        o.contacts[at] = n;
    }
}

// A warp's band of the tile: kAdjBand rows and the row below them, loaded at once (one coalesced
// load a row, all in flight together), and the labels just beyond the warp's 32 columns (lane 31
// the column to the right, lane 0 the one to the left) for the pairs that cross into the next
// warp's columns. A lane's neighbours in each row then come from registers and shuffles.
constexpr std::uint32_t kAdjWarps = kAdjThreads / 32;
constexpr std::uint32_t kAdjBand = kAdjTileH / kAdjWarps;
static_assert(kAdjBand * kAdjWarps == kAdjTileH);

struct WarpBand {
    std::uint32_t v[kAdjBand + 1];     ///< the lane's column, rows y0 .. y0 + kAdjBand
    std::uint32_t edge[kAdjBand + 1];  ///< lane 31: column x + 1; lane 0: column x - 1
};

__device__ __forceinline__ void load_band(const AdjParams& p, std::uint32_t x, std::uint32_t y0, std::uint32_t lane,
                                          WarpBand& b) {
    const bool in_x = x < p.width;
    const std::int64_t ex = lane == 31 ? std::int64_t(x) + 1 : std::int64_t(x) - 1;
    const bool edge_in = (lane == 31 || lane == 0) && in_x && ex >= 0 && ex < std::int64_t(p.width);
    const std::uint32_t* col = p.labels + std::int64_t(y0) * p.stride;
#pragma unroll
    for (std::uint32_t r = 0; r <= kAdjBand; ++r) {
        const bool row_in = y0 + r < p.height;
        b.v[r] = in_x && row_in ? __ldg(col + std::int64_t(r) * p.stride + x) : 0u;
        b.edge[r] = edge_in && row_in ? __ldg(col + std::int64_t(r) * p.stride + ex) : 0u;
    }
}

// Row r of the band as lane_neighbours() reads it from memory (kernels/adjacency_bodies.cuh).
__device__ __forceinline__ LaneNeighbours band_row(const AdjParams& p, const WarpBand& b, std::uint32_t r,
                                                   std::uint32_t x, std::uint32_t y, std::uint32_t lane) {
    LaneNeighbours n;
    n.in = x < p.width && y < p.height;
    n.has_right = x + 1 < p.width;
    n.has_below = y + 1 < p.height;
    n.has_left = x > 0;
    n.self = n.in ? b.v[r] : 0u;
    n.below = n.in && n.has_below ? b.v[r + 1] : 0u;
    n.right = __shfl_down_sync(0xFFFFFFFFu, n.self, 1);
    n.below_right = __shfl_down_sync(0xFFFFFFFFu, n.below, 1);
    n.below_left = __shfl_up_sync(0xFFFFFFFFu, n.below, 1);
    if (lane == 31 && n.in && n.has_right) {
        n.right = b.edge[r];
        if (n.has_below) n.below_right = b.edge[r + 1];
    }
    if (lane == 0 && n.in && n.has_below && n.has_left) n.below_left = b.edge[r + 1];
    return n;
}

/// The 32-pixel steps of the rows of a warp's band (kAdjBand rows from @p y0, columns @p xq .. xq +
/// kAdjQuadW − 1) where some pixel may own a pair, as bits (row r, step j: bit 4r + j; quad_steps);
/// the same for every lane. A lane loads its four
/// columns of every row of the band and of the row below at once (a 16-byte load each, all in
/// flight together), lanes 0 and 31 also the column beside the tile, and takes its neighbours'
/// columns by shuffles; quad_quiet decides each row. A quad that the picture's right edge cuts
/// counts as noisy: its row is read pixel by pixel, with the edge checked there.
__device__ __forceinline__ std::uint32_t quad_band_noisy(const AdjParams& p, std::uint32_t xq, std::uint32_t y0,
                                                        std::uint32_t lane) {
    const std::uint32_t x = xq + 4 * lane;
    const bool full = x + 3 < p.width;
    const bool has_right = x + 4 < p.width, has_left = x > 0;
    const std::int64_t ex = lane == 31 ? std::int64_t(x) + 4 : std::int64_t(x) - 1;
    const bool edge_in = (lane == 31 && has_right) || (lane == 0 && has_left);
    const std::uint32_t* base = p.labels + std::int64_t(y0) * p.stride;
    uint4 v[kAdjBand + 1];
    std::uint32_t e[kAdjBand + 1];
#pragma unroll
    for (std::uint32_t r = 0; r <= kAdjBand; ++r) {
        const bool row_in = y0 + r < p.height;
        const std::uint32_t* row = base + std::int64_t(r) * p.stride;
        if (full && row_in) {
            v[r] = __ldg(reinterpret_cast<const uint4*>(row + x));
        } else {
            v[r] = make_uint4(0u, 0u, 0u, 0u);
            if (row_in && x < p.width) {  // the quad the right edge cuts: its pixels in the picture
                v[r].x = __ldg(row + x);
                if (x + 1 < p.width) v[r].y = __ldg(row + x + 1);
                if (x + 2 < p.width) v[r].z = __ldg(row + x + 2);
            }
        }
        e[r] = edge_in && row_in ? __ldg(row + ex) : 0u;
    }
    std::uint32_t noisy = 0;
#pragma unroll
    for (std::uint32_t r = 0; r < kAdjBand; ++r) {
        if (y0 + r >= p.height) break;  // the same for the whole warp
        const std::uint32_t self[4] = {v[r].x, v[r].y, v[r].z, v[r].w};
        const std::uint32_t below[4] = {v[r + 1].x, v[r + 1].y, v[r + 1].z, v[r + 1].w};
        std::uint32_t right = __shfl_down_sync(0xFFFFFFFFu, v[r].x, 1);
        std::uint32_t below_right = __shfl_down_sync(0xFFFFFFFFu, v[r + 1].x, 1);
        std::uint32_t below_left = __shfl_up_sync(0xFFFFFFFFu, v[r + 1].w, 1);
        if (lane == 31) {
            right = e[r];
            below_right = e[r + 1];
        }
        if (lane == 0) below_left = e[r + 1];
        const bool quiet =
            x >= p.width || (full && quad_quiet(self, below, right, below_right, below_left, has_right, has_left,
                                                y0 + r + 1 < p.height, p.connectivity, p.include_background));
        noisy |= quad_steps(__ballot_sync(0xFFFFFFFFu, !quiet)) << (4 * r);
    }
    return noisy;
}

/// A warp's row of 32 pixels (lane i: the pixel i to the right of lane 0's, @p nb its neighbours):
/// in each direction, the runs of one pair along the row go into the block's table (or out on
/// their own when it has no room), a run's length added once by its first lane.
template <bool kRoll, class Cas, class Add>
__device__ __forceinline__ void row_items(const AdjParams& p, const AdjOut& o, const LaneNeighbours& nb, int dirs,
                                          std::uint32_t lane, unsigned int& s_nused, std::uint32_t& largest,
                                          Cas& cas, Add& add) {
#pragma unroll(kRoll ? 1 : 4)
    for (int d = 0; d < dirs; ++d) {
        const std::uint64_t key = neighbour_pair(nb, d, p.include_background);
        const std::uint64_t left = __shfl_up_sync(0xFFFFFFFFu, key, 1);
        const bool head = run_head(lane, key, left);
        const std::uint32_t heads = __ballot_sync(0xFFFFFFFFu, head);
        bool spill = false;
        std::uint32_t n = 0;
        if (head && key != kNoPair) {
            n = run_length(heads, lane);
            spill = table_full(*static_cast<volatile unsigned int*>(&s_nused)) || !table_add(key, n, cas, add);
        }
        // Pairs that found no slot (a tile of noise) go out on their own, a warp's at once.
        const std::uint32_t spills = __ballot_sync(0xFFFFFFFFu, spill);
        if (spills != 0) {
            unsigned long long base = 0;
            if (lane == ffs32(spills) - 1u) base = atomicAdd(&o.tally->items, (unsigned long long)popc32(spills));
            base = __shfl_sync(0xFFFFFFFFu, base, ffs32(spills) - 1u);
            if (spill) {
                put_item(o, base + popc32(spills & mask_below(lane)), key, n);
                largest = max(largest, std::uint32_t(key >> 32));
            }
        }
    }
}

/// The tile kernel's ideas that the benchmark can turn off (CCLABEL_ADJACENCY_OFF=name,name), or on
/// while they are not yet measured (CCLABEL_ADJACENCY_TRY=name); read once; never changing the edges.
struct AdjSwitches {
    /// The directions' loop kept rolled (CCLABEL_ADJACENCY_OFF=roll unrolls it). Unrolled in each
    /// of the band's eight unrolled rows, the kernel's code outgrew the instruction cache (ncu on
    /// the 800 dpi sheet, H100, 2026-12-07: a warp waited 5.8 of every 15.4 cycles for its next
    /// instruction to be fetched, 0.39 instructions issued a cycle a scheduler, DRAM 11% busy);
    /// rolled, ptxas needs 62-64 registers instead of 68-70, four blocks an SM instead of three:
    /// the tile kernel took 6.5 ms against 12.7 unrolled (800 dpi, H100, eighteenth session).
    bool roll = true;
    /// The table looked at after every tile (out when half full), not once a run of tiles: a
    /// barrier a run let the table fill within the run and send more pairs out on their own
    /// (3.19 million items against 2.32 million, tiles 7.8 ms against 6.5, H100, 2026-12-07).
    bool tile_out = true;
    /// Four pixels a lane (adjacency_quad_kernel): one 16-byte load a row, and a row whose lanes
    /// all find no pair (quad_quiet) costs a few compares a pixel; the rows that hold a pair are read
    /// again pixel by pixel. The labels must lie on 16 bytes and rows a multiple of four labels
    /// apart (else the pixel kernel runs). The pixel kernel is bound by its instructions, not by
    /// memory (ncu, H100, 2026-12-07: DRAM 11% busy), and most of a drawing's rows hold no pair.
    /// The 800 dpi sheet's tile kernel: 4.7 ms against 6.5 (H100, twentieth session, with
    /// early_result: the whole call 9.7-10.5 ms against 15.4-16.2).
    bool quads = true;
    /// The result (a std::vector, zeroed when sized) sized on a host thread while the device finds
    /// and sorts the pairs, from the last call's edges a pixel, and filled from the pinned download
    /// by block copies on the host's threads. Otherwise one assign after the download: 5.1-5.5 ms
    /// of the 800 dpi sheet's 15.4 (35 MB, H100 host, 2026-12-07), on one thread while the device
    /// waits. With it the step took 2.1-3.6 ms against 5.7-6.4 (800 dpi, H100, twentieth session).
    bool early_result = true;
};

AdjSwitches adjacency_switches() {
    static const AdjSwitches sw = [] {
        AdjSwitches s;
        s.roll = !cclabel::detail::env_list_has("CCLABEL_ADJACENCY_OFF", "roll");
        s.tile_out = !cclabel::detail::env_list_has("CCLABEL_ADJACENCY_OFF", "tile_out");
        auto choose = [](bool on, const char* name) {
            return (on || cclabel::detail::env_list_has("CCLABEL_ADJACENCY_TRY", name)) &&
                   !cclabel::detail::env_list_has("CCLABEL_ADJACENCY_OFF", name);
        };
        s.quads = choose(s.quads, "quads");
        s.early_result = choose(s.early_result, "early_result");
        return s;
    }();
    return sw;
}

/// A block takes runs of kAdjChunk tiles while there are any. The table goes out only when
/// it is half full after a tile (kTileOut) or a run, and at the end: putting it out after every
/// tile cost three barriers a tile, and the warps waited for each other's loads at each (12 ms on
/// the 800 dpi sheet in 32 x 32 tiles of one row a warp at a time, H100, 2026-12-07). Three blocks
/// an SM: left to itself ptxas held the band in 64 registers and spilled. With kQuads the tiles are
/// kAdjQuadW pixels wide, four a lane (quad_band_noisy).
template <bool kRoll, bool kTileOut, bool kQuads>
__global__ void __launch_bounds__(kAdjThreads, 3) adjacency_tile_kernel(AdjParams p, AdjOut o) {
    __shared__ unsigned long long s_keys[kAdjTable];
    __shared__ unsigned int s_counts[kAdjTable];
    // The slots taken since the table last went out, so that putting it out and clearing it
    // touches only those.
    __shared__ unsigned short s_used[kAdjTable];
    __shared__ unsigned int s_nused;
    __shared__ unsigned long long s_base;
    __shared__ unsigned int s_chunk;
    const std::uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const int dirs = adjacency_directions(p);
    std::uint32_t largest = 0;
    auto cas = [&](std::uint32_t slot, std::uint64_t expected, std::uint64_t desired) {
        const auto old = std::uint64_t(atomicCAS(&s_keys[slot], (unsigned long long)expected, (unsigned long long)desired));
        if (old == kNoPair) s_used[atomicAdd(&s_nused, 1u)] = static_cast<unsigned short>(slot);
        return old;
    };
    auto add = [&](std::uint32_t slot, std::uint32_t n) { atomicAdd(&s_counts[slot], n); };
    // Every thread calls it after a barrier that follows the last add: all read the same count.
    auto put_out = [&] {
        const std::uint32_t used = s_nused;
        if (threadIdx.x == 0) s_base = used ? atomicAdd(&o.tally->items, (unsigned long long)used) : 0ull;
        __syncthreads();  // s_base is set and every thread has read s_nused
        if (threadIdx.x == 0) s_nused = 0;
        for (std::uint32_t i = threadIdx.x; i < used; i += blockDim.x) {
            const std::uint32_t slot = s_used[i];
            const std::uint64_t key = s_keys[slot];
            put_item(o, s_base + i, key, s_counts[slot]);
            largest = max(largest, std::uint32_t(key >> 32));
            s_keys[slot] = kNoPair;
            s_counts[slot] = 0;
        }
        __syncthreads();  // the table is clear before the next tile takes slots
    };
    for (std::uint32_t i = threadIdx.x; i < kAdjTable; i += blockDim.x) {
        s_keys[i] = kNoPair;
        s_counts[i] = 0;
    }
    if (threadIdx.x == 0) s_nused = 0;
    __syncthreads();
    for (;;) {
        if (threadIdx.x == 0) s_chunk = atomicAdd(&o.tally->next_chunk, 1u);
        __syncthreads();
        const std::uint64_t first = std::uint64_t(s_chunk) * kAdjChunk;
        if (first >= p.tiles) break;
        const std::uint64_t last = min(first + kAdjChunk, p.tiles);
        for (std::uint64_t tile = first; tile < last; ++tile) {
            if constexpr (kQuads) {
                const std::uint32_t ty = std::uint32_t(tile / p.tiles_x);
                const std::uint32_t xq = std::uint32_t(tile - std::uint64_t(ty) * p.tiles_x) * kAdjQuadW;
                const std::uint32_t y0 = ty * kAdjTileH + warp * kAdjBand;
                // The band's steps that may hold a pair, read again a pixel a lane, 32 pixels a step.
                for (std::uint32_t noisy = quad_band_noisy(p, xq, y0, lane); noisy != 0; noisy &= noisy - 1u) {
                    const std::uint32_t bit = ffs32(noisy) - 1u;
                    const LaneNeighbours nb = pixel_neighbours(p, xq + (bit & 3u) * 32 + lane, y0 + (bit >> 2));
                    if (__ballot_sync(0xFFFFFFFFu, lane_has_pair(nb, dirs, p.include_background)) == 0) continue;
                    row_items<kRoll>(p, o, nb, dirs, lane, s_nused, largest, cas, add);
                }
            } else {
                std::uint32_t x, y0;
                lane_place(p, tile, warp * kAdjBand, lane, x, y0);
                WarpBand band;
                load_band(p, x, y0, lane, band);
#pragma unroll
                for (std::uint32_t r = 0; r < kAdjBand; ++r) {
                    if (y0 + r >= p.height) break;  // the same for the whole warp
                    const LaneNeighbours nb = band_row(p, band, r, x, y0 + r, lane);
                    if (__ballot_sync(0xFFFFFFFFu, lane_has_pair(nb, dirs, p.include_background)) == 0) continue;
                    row_items<kRoll>(p, o, nb, dirs, lane, s_nused, largest, cas, add);
                }
            }
            // Thread 0's look at the count may miss a warp's last adds: it only decides when the table
            // goes out early (the same answer for every thread); the last put_out takes whatever is left.
            if (kTileOut && __syncthreads_or(threadIdx.x == 0 && s_nused > kAdjTable / 2)) put_out();
        }
        // A table that fills between looks sends its new pairs out on their own (table_full), which
        // costs items, not answers. The barrier also keeps thread 0 from taking the next run before
        // every thread has read this one.
        if (__syncthreads_or(!kTileOut && threadIdx.x == 0 && s_nused > kAdjTable / 2)) put_out();
    }
    __syncthreads();
    if (s_nused != 0) put_out();
    largest = __reduce_max_sync(0xFFFFFFFFu, largest);
    if (lane == 0 && largest != 0) atomicMax(&o.tally->largest_a, largest);
}

using TileKernel = void (*)(AdjParams, AdjOut);

TileKernel tile_kernel(const AdjSwitches& sw, bool quads) {
    if (quads)
        return sw.roll ? (sw.tile_out ? adjacency_tile_kernel<true, true, true> : adjacency_tile_kernel<true, false, true>)
                       : (sw.tile_out ? adjacency_tile_kernel<false, true, true> : adjacency_tile_kernel<false, false, true>);
    return sw.roll ? (sw.tile_out ? adjacency_tile_kernel<true, true, false> : adjacency_tile_kernel<true, false, false>)
                   : (sw.tile_out ? adjacency_tile_kernel<false, true, false> : adjacency_tile_kernel<false, false, false>);
}

}  // namespace

// As many blocks as fit on the device at once (the band's registers decide: four or so an SM); they
// take the tiles from a counter.
unsigned grid_for(const void* kernel, std::uint32_t threads, std::uint64_t tiles) {
    int device = 0, sms = 132, per_sm = 4;
    if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, int(threads), 0) != cudaSuccess || per_sm < 1)
        per_sm = 1;
    cudaGetLastError();
    const std::uint64_t resident = std::uint64_t(sms) * std::uint64_t(per_sm);
    return unsigned(std::max<std::uint64_t>(1, std::min(tiles, resident)));
}

/// The edges of @p labels, a width × height image in device memory with rows @p stride labels
/// apart, on @p stream (waited for); @p threads host threads fault the result's memory in.
std::vector<AdjacencyEdge> adjacency_on_device(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                               std::int64_t stride, int connectivity, bool include_background,
                                               cudaStream_t stream, int threads) {
    AdjParams p;
    p.labels = labels;
    p.width = std::uint32_t(width);
    p.height = std::uint32_t(height);
    p.stride = stride;
    // The quad kernel's 16-byte loads need every row's start on 16 bytes.
    const AdjSwitches sw = adjacency_switches();
    const bool quads = sw.quads && reinterpret_cast<std::uintptr_t>(labels) % 16 == 0 && stride % 4 == 0;
    const std::uint32_t tile_w = quads ? kAdjQuadW : kAdjTileW;
    p.tiles_x = std::uint32_t((std::uint64_t(width) + tile_w - 1) / tile_w);
    p.tiles = std::uint64_t(p.tiles_x) * ((std::uint64_t(height) + kAdjTileH - 1) / kAdjTileH);
    p.connectivity = connectivity;
    p.include_background = include_background;
    // The items a pixel of the last call: the next call's first guess (edges_of_items).
    static std::atomic<double> items_a_pixel{0.0};
    return edges_of_items(std::uint64_t(width) * std::uint64_t(height), items_a_pixel, stream, threads,
                          [&](const AdjOut& out) {
                              auto* kernel = tile_kernel(sw, quads);
                              kernel<<<grid_for(reinterpret_cast<const void*>(kernel), kAdjThreads, p.tiles),
                                       kAdjThreads, 0, stream>>>(p, out);
                              CCL_LAUNCHED("adjacency_tile_kernel");
                          });
}

std::vector<AdjacencyEdge> edges_of_items(std::uint64_t pixels, std::atomic<double>& items_a_pixel,
                                          cudaStream_t stream, int threads,
                                          const std::function<void(const AdjOut&)>& run_tiles) {
    // CCLABEL_TRACE_ADJACENCY: each step's time on stderr (the stream waited for after each).
    static const bool trace = [] {
        const char* v = std::getenv("CCLABEL_TRACE_ADJACENCY");
        return v != nullptr && *v != '\0' && !(v[0] == '0' && v[1] == '\0');
    }();
    auto t_last = std::chrono::steady_clock::now();
    auto step = [&](const char* what) {
        if (!trace) return;
        CCL_CUDA(cudaStreamSynchronize(stream));
        const auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr, "cclabel adjacency: %-8s %8.3f ms\n", what,
                     std::chrono::duration<double, std::milli>(now - t_last).count());
        t_last = now;
    };

    // AdjSwitches::early_result: the result sized (faulted in and zeroed) on a host thread while the
    // device finds the pairs, from the last call's edges a pixel, then filled by block copies on
    // the host's threads.
    static std::atomic<double> edges_a_pixel{0.0};
    // The first call has no guess: it sizes the result once the items are counted, as without.
    const std::uint64_t guess = adjacency_switches().early_result
                                    ? std::uint64_t(double(pixels) * edges_a_pixel.load(std::memory_order_relaxed))
                                    : 0;
    const bool early = guess > 0;
    std::vector<AdjacencyEdge> edges;
    std::thread populate;
    struct Join {  // an exception on the way still waits for the thread that writes into edges
        std::thread& t;
        ~Join() {
            if (t.joinable()) t.join();
        }
    } join_populate{populate};
    if (early)
        populate = std::thread([&edges, guess, threads] {
            edges.reserve(guess);
            cclabel::detail::advise_huge_pages(edges.data(), guess * sizeof(AdjacencyEdge));
            cclabel::detail::populate_for_writing(edges.data(), guess * sizeof(AdjacencyEdge), threads);
            edges.resize(guess);
        });

    DeviceBuffer tally_d(sizeof(AdjTally), "the adjacency tally");
    cuda::host::PooledPinned tally_h;
    tally_h.reserve(sizeof(AdjTally), "the adjacency tally");
    auto* tally = tally_h.as<AdjTally>();
    // A drawing's tiles hold a few pairs each: a 64th of the pixels is room to spare. A picture that
    // needs more (noise) runs again into a larger buffer; which pairs find a table slot depends on
    // the order the warps come, so a second run may count a few more than the first: a quarter more
    // room, and again if even that is short. The items a pixel of the last call is the next call's
    // guess too (the 100 dpi sheet needed its second run on every call: 415,000 items, room for
    // 197,000), as the pictures of one job are alike; at most a 16th of the pixels (2.5 bytes
    // of buffer a pixel), so that a picture of noise does not make the next large drawing ask for gigabytes.
    // (A volume's voxels count as pixels here, with their own guess: adjacency3d_cuda.cu.)
    std::uint64_t capacity = std::max<std::uint64_t>(pixels / 64, std::uint64_t(1) << 16);
    capacity = std::max(capacity, std::uint64_t(double(pixels) * items_a_pixel.load(std::memory_order_relaxed) * 1.25));
    DeviceBuffer items_buf;  // keys then contacts, twice each (the sort's double buffers)
    for (int attempt = 0;; ++attempt) {
        items_buf.alloc(4 * capacity * sizeof(std::uint64_t), "the adjacency pairs");
        step("alloc");
        CCL_CUDA(cudaMemsetAsync(tally_d.p, 0, sizeof(AdjTally), stream));
        const AdjOut out{items_buf.as<std::uint64_t>(), items_buf.as<std::uint64_t>() + 2 * capacity, capacity,
                         tally_d.as<AdjTally>()};
        run_tiles(out);
        CCL_CUDA(cudaMemcpyAsync(tally, tally_d.p, sizeof(AdjTally), cudaMemcpyDeviceToHost, stream));
        CCL_CUDA(cudaStreamSynchronize(stream));
        step("tiles");
        if (trace) std::fprintf(stderr, "cclabel adjacency: %llu items, capacity %llu\n", tally->items,
                                (unsigned long long)capacity);
        if (tally->items <= capacity) break;
        if (attempt == 3) throw Error("adjacency: the pairs outgrew their buffer four times (a bug)");
        capacity = tally->items + tally->items / 4;
    }
    const std::uint64_t items = tally->items;
    if (pixels > 0) items_a_pixel.store(std::min(1.0 / 16, double(items) / double(pixels)), std::memory_order_relaxed);
    if (items == 0) {
        edges_a_pixel.store(0.0, std::memory_order_relaxed);
        return {};
    }

    // The result's room (the items bound the edges) faulted in on the host's threads while the
    // device sorts and sums (core/huge_pages.hpp): one thread's first writes into it took 11 ms on
    // the 800 dpi sheet, against 1.3 ms for everything from here to the download (H100, 2026-12-07).
    // Sizing it there too (resize's zeroing on that thread) and filling it by block copies on the
    // host's threads took longer than one assign: 6.3-6.6 ms against 5.1-5.5 for the step, as the
    // zeroing outlasted the device's 1.7 ms (H100, eighteenth session).
    if (!early) {
        edges.reserve(items);
        cclabel::detail::advise_huge_pages(edges.data(), items * sizeof(AdjacencyEdge));
        populate = std::thread([&edges, items, threads] {
            cclabel::detail::populate_for_writing(edges.data(), items * sizeof(AdjacencyEdge), threads);
        });
    }

    auto* k = items_buf.as<std::uint64_t>();
    auto* v = k + 2 * capacity;
    cub::DoubleBuffer<std::uint64_t> kb(k, k + capacity), vb(v, v + capacity);
    // Keys are a << 32 | b with a ≤ largest_a: the bits above are zero.
    const int end_bit = 32 + std::max(1, int(std::bit_width(tally->largest_a)));
    std::size_t sort_bytes = 0, reduce_bytes = 0;
    CCL_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, kb, vb, std::int64_t(items), 0, end_bit, stream));
    CCL_CUDA(cub::DeviceReduce::ReduceByKey(nullptr, reduce_bytes, k, k, v, v, static_cast<unsigned long long*>(nullptr),
                                            ::cuda::std::plus<>{}, std::int64_t(items), stream));
    DeviceBuffer temp(std::max(sort_bytes, reduce_bytes) + sizeof(std::uint64_t), "the adjacency sort");
    step("temp");
    CCL_CUDA(cub::DeviceRadixSort::SortPairs(temp.p, sort_bytes, kb, vb, std::int64_t(items), 0, end_bit, stream));
    step("sort");
    // The sorted items are in kb/vb.Current(); the sums go to the other halves.
    std::uint64_t* sk = kb.Current();
    std::uint64_t* sv = vb.Current();
    std::uint64_t* uk = kb.Alternate();
    std::uint64_t* uv = vb.Alternate();
    DeviceBuffer runs(sizeof(unsigned long long), "the adjacency edge count");
    CCL_CUDA(cub::DeviceReduce::ReduceByKey(temp.p, reduce_bytes, sk, uk, sv, uv, runs.as<unsigned long long>(),
                                            ::cuda::std::plus<>{}, std::int64_t(items), stream));
    CCL_CUDA(cudaMemcpyAsync(&tally->items, runs.p, sizeof tally->items, cudaMemcpyDeviceToHost, stream));
    CCL_CUDA(cudaStreamSynchronize(stream));
    step("reduce");
    // Packed as AdjacencyEdge on the device, so that one copy fills the result.
    const std::uint64_t n = tally->items;
    DeviceBuffer packed(n * sizeof(AdjacencyEdge), "the adjacency edges");
    pack_edges_kernel<<<unsigned(std::min<std::uint64_t>((n + kAdjThreads - 1) / kAdjThreads, 1u << 20)), kAdjThreads, 0,
                        stream>>>(uk, uv, n, packed.as<PackedEdge>());
    CCL_LAUNCHED("pack_edges_kernel");
    step("pack");
    // Down into pinned memory (0.7 ms for the 800 dpi sheet's 2.2 million edges, where a pageable
    // copy took 4), then one pass that builds the result into a vector on huge pages: its 35 MB
    // faulted in 4 KiB at a time took 17-19 ms (H100 host, 2026-12-07).
    cuda::host::PooledPinned staged;
    staged.reserve(n * sizeof(PackedEdge), "the adjacency edges");
    CCL_CUDA(cudaMemcpyAsync(staged.p, packed.p, n * sizeof(PackedEdge), cudaMemcpyDeviceToHost, stream));
    CCL_CUDA(cudaStreamSynchronize(stream));
    step("download");
    // The pinned bytes are AdjacencyEdge's layout (PackedEdge's static_assert): one block copy
    // (memmove, as the edges are trivially copyable) instead of building each edge (9.2 ms with
    // the page faults on huge pages, H100 host, 2026-12-07).
    static_assert(std::is_trivially_copyable_v<AdjacencyEdge>);
    const auto* from = staged.as<const AdjacencyEdge>();
    if (populate.joinable()) populate.join();
    step("join");  // waiting for the host thread that sized the result
    // At most a 16th of the pixels (16 bytes a pixel's result): after noise, a large drawing must
    // not size gigabytes it will not fill.
    if (pixels > 0) edges_a_pixel.store(std::min(1.0 / 16, double(n) / double(pixels)), std::memory_order_relaxed);
    if (early) {
        // Shrinking keeps the memory; a guess that fell short zeroes only the rest, on this thread.
        edges.resize(n);
        step("resize");
        constexpr std::uint64_t kPart = std::uint64_t(1) << 18;  // edges a block copy: 4 MiB
        cclabel::detail::parallel_for((n + kPart - 1) / kPart, std::max(1, threads), [&](std::uint64_t i) {
            const std::uint64_t a = i * kPart, b = std::min(n, a + kPart);
            std::memcpy(static_cast<void*>(edges.data() + a), from + a, (b - a) * sizeof(AdjacencyEdge));
        }, cpu::Work::streaming);
    } else {
        edges.assign(from, from + n);
    }
    step("vector");
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
        return adjacency_on_device(labels, width, height, stride, connectivity, include_background, stream.s,
                                   cuda::host::copy_threads(threads));
    const std::size_t row = std::size_t(width) * 4;
    DeviceBuffer d(row * std::size_t(height), "the labels");
    cuda::host::copy_up(d.p, labels, std::size_t(stride) * 4, row, std::size_t(height), stream.s,
                        cuda::host::copy_threads(threads));
    return adjacency_on_device(d.as<std::uint32_t>(), width, height, width, connectivity, include_background, stream.s,
                               cuda::host::copy_threads(threads));
}

}  // namespace cclabel::detail

namespace cclabel::detail {

bool on_device(const void* p) noexcept { return cuda::host::memory_kind(p) == cuda::host::MemoryKind::Device; }

}  // namespace cclabel::detail
