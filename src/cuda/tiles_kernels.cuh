#pragma once
// The kernels of the tiled GPU pipeline (tiles_cuda.cu, the only file that includes this): each
// tile's border, its first-pixel table (reserved in the context's store, cleared, filled, written
// out as global indices into mapped pinned memory), and the maps fetched and applied to the labels.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cclabel/detail/pixel_traits.hpp"
#include "core/tile_grid.hpp"

namespace cclabel::cuda {
namespace {

constexpr unsigned kThreads = 256;

unsigned blocks_for(std::uint64_t items, std::uint64_t cap = 65535) {
    return unsigned(std::max<std::uint64_t>(1, std::min<std::uint64_t>((items + kThreads - 1) / kThreads, cap)));
}

/// The tile's border in TileInfo's layout: meta[0] is the count (written by label_device),
/// meta[1 .. 1 + R) the keys and meta[1 + R .. 1 + 2R) the labels, R = 2·(w + h).
template <PixelFormat F>
__global__ void border_kernel(const std::uint8_t* image, std::uint64_t pitch, std::int64_t w, std::int64_t h,
                              const std::uint32_t* labels, std::uint32_t* meta) {
    using T = cclabel::detail::PixelTraits<F>;
    const std::uint64_t ring = 2 * std::uint64_t(w + h);
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < ring;
         i += std::uint64_t(gridDim.x) * blockDim.x) {
        const cclabel::detail::RingPixel p = cclabel::detail::ring_pixel(i, w, h);
        meta[1 + i] = T::key(image + std::uint64_t(p.y) * pitch + std::uint64_t(p.x) * T::kBytes);
        meta[1 + ring + i] = labels[std::uint64_t(p.y) * std::uint64_t(w) + std::uint64_t(p.x)];
    }
}

/// A tile's first-pixel table lives at store + *offset; kNoOffset marks a tile whose table did not
/// fit the store (the host gives it one after phase A).
constexpr std::uint32_t kNoOffset = ~std::uint32_t(0);

/// Reserves meta[0] (the tile's count) words of the store: *offset = the first, or kNoOffset when
/// they would pass @p cap. One thread; the cursor is shared by the context's two streams, hence
/// the atomic (offsets then depend on the order the tiles finish in; the tables do not). When the
/// store has room, also reserves as many entries of the host's mapped table buffer (cursor[1],
/// @p host_cap entries): offset[1] = the first, or kNoOffset (then the host copies the table back
/// itself, as before). offset[1] is kNoOffset too when the store had no room.
__global__ void first_reserve_kernel(const std::uint32_t* meta, unsigned long long* cursor, unsigned long long cap,
                                     unsigned long long host_cap, std::uint32_t* offset) {
    const unsigned long long n = meta[0];
    const unsigned long long at = atomicAdd(cursor, n);
    const bool fits = at + n <= cap;  // cap ≤ kNoOffset, so at < kNoOffset when n > 0
    offset[0] = fits ? std::uint32_t(at) : kNoOffset;
    std::uint32_t host_at = kNoOffset;
    if (fits && n > 0 && host_cap > 0) {
        const unsigned long long h = atomicAdd(cursor + 1, n);
        if (h + n <= host_cap) host_at = std::uint32_t(h);  // host_cap < kNoOffset
    }
    offset[1] = host_at;
}

/// store[*offset .. *offset + meta[0]) = ~0.
__global__ void first_clear_kernel(const std::uint32_t* meta, const std::uint32_t* offset, std::uint32_t* store) {
    const std::uint32_t off = *offset;
    if (off == kNoOffset) return;
    const std::uint64_t n = meta[0];
    std::uint32_t* first = store + off;
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::uint64_t(gridDim.x) * blockDim.x)
        first[i] = ~std::uint32_t(0);
}

/// first[l − 1] = min local index of the pixels of label l (first = store + *offset, cleared to
/// ~0). Only run starts try, and only while they would lower the entry, so a region of many pixels
/// costs few atomics.
__global__ void first_kernel(const std::uint32_t* labels, std::uint64_t w, std::uint64_t h, std::uint32_t* store,
                             const std::uint32_t* offset) {
    const std::uint32_t off = *offset;
    if (off == kNoOffset) return;
    std::uint32_t* first = store + off;
    for (std::uint64_t y = blockIdx.y; y < h; y += gridDim.y) {
        const std::uint32_t* row = labels + y * w;
        for (std::uint64_t x = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; x < w;
             x += std::uint64_t(gridDim.x) * blockDim.x) {
            const std::uint32_t l = row[x];
            if (!cclabel::detail::is_run_start(row, std::int64_t(x), l)) continue;
            std::uint32_t* f = first + (l - 1);
            const std::uint32_t i = std::uint32_t(y * w + x);  // < 2^32 − 1: a tile has at most that many pixels
            if (*static_cast<volatile std::uint32_t*>(f) <= i) continue;
            atomicMin(f, i);
        }
    }
}

/// The tile's first-pixel table as global pixel indices, written straight into the host's mapped
/// pinned buffer @p host (at offset[1], when reserved): host[offset[1] + l] = the global index of
/// first[l], or ~0 for an entry left at ~0 (a label without a pixel: the host reports it). The
/// writes cross the bus in the download direction while the next tile's upload uses the other, and
/// the host finds the table there when the tile's event has fired: no copy of its own, no wait.
__global__ void first_out_kernel(const std::uint32_t* meta, const std::uint32_t* store, const std::uint32_t* offset,
                                 std::uint64_t* host, std::uint64_t x0, std::uint64_t y0, std::uint64_t w,
                                 std::uint64_t image_width) {
    const std::uint32_t off = offset[0], host_at = offset[1];
    if (off == kNoOffset || host_at == kNoOffset) return;
    const std::uint64_t n = meta[0];
    const std::uint32_t* first = store + off;
    std::uint64_t* dst = host + host_at;
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::uint64_t(gridDim.x) * blockDim.x) {
        const std::uint32_t f = first[i];
        // As cclabel::detail::global_index.
        dst[i] = f == ~std::uint32_t(0) ? ~std::uint64_t(0) : (y0 + f / w) * image_width + x0 + f % w;
    }
}

/// dst[0 .. n) = src[0 .. n): a map the host wrote into mapped pinned memory, brought to the device
/// by a kernel rather than a copy, which could queue on the copy engine behind the uploads.
template <typename Out>
__global__ void fetch_kernel(const Out* src, Out* dst, std::uint64_t n) {
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::uint64_t(gridDim.x) * blockDim.x)
        dst[i] = src[i];
}

template <typename Out>
__global__ void relabel_kernel(const std::uint32_t* labels, std::uint64_t pixels, const Out* map, Out* out) {
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
         i += std::uint64_t(gridDim.x) * blockDim.x)
        out[i] = map[labels[i]];
}

}  // namespace
}  // namespace cclabel::cuda
