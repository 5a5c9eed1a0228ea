#pragma once
// The pieces of the tiled path that the GPU pipeline (src/cuda/tiles_cuda.cu) and the CPU share,
// written once so that tests/cpp can check them without a GPU:
//   TileGrid        the grid of tiles of label_tiled() (last column and row ragged, a tile larger
//                   than the image clipped to it), tile t at column t % nx, row t / nx;
//   ring_pixel()    the pixel of a tile at a position of TileInfo's border layout (CCL_HD: the
//                   device gathers the border with it);
//   is_run_start()  the pixels that may be the first of their label (CCL_HD: the device's
//                   first-index kernel tries only these);
//   grid_seams()    the seams of a grid (right, lower, and for 8-connectivity both lower diagonals).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cclabel/detail/hd.hpp"
#include "cclabel/tiles.hpp"

namespace cclabel::detail {

struct TileGrid {
    std::int64_t W = 0, H = 0;    ///< the whole image
    std::int64_t tw = 1, th = 1;  ///< the tile size, clipped to the image
    std::uint64_t nx = 0, ny = 0;

    TileGrid() = default;
    TileGrid(std::int64_t width, std::int64_t height, std::int64_t tile_w, std::int64_t tile_h)
        : W(width), H(height),
          tw(std::min(tile_w, std::max<std::int64_t>(width, 1))),
          th(std::min(tile_h, std::max<std::int64_t>(height, 1))),
          nx(width > 0 && height > 0 ? std::uint64_t((width + tw - 1) / tw) : 0),
          ny(width > 0 && height > 0 ? std::uint64_t((height + th - 1) / th) : 0) {}

    std::uint64_t count() const noexcept { return nx * ny; }
    TileRect rect(std::uint64_t t) const noexcept {
        const std::int64_t x0 = std::int64_t(t % nx) * tw, y0 = std::int64_t(t / nx) * th;
        return TileRect{x0, y0, std::min(tw, W - x0), std::min(th, H - y0)};
    }
    std::uint64_t max_tile_pixels() const noexcept { return std::uint64_t(tw) * std::uint64_t(th); }
};

/// (x, y) inside a width × height tile of position @p i of the border layout (TileInfo):
/// top row, bottom row, left column, right column. @p i < 2·(width + height).
struct RingPixel {
    std::int64_t x, y;
};
CCL_HD RingPixel ring_pixel(std::uint64_t i, std::int64_t width, std::int64_t height) {
    const std::uint64_t w = std::uint64_t(width), h = std::uint64_t(height);
    if (i < w) return RingPixel{std::int64_t(i), 0};
    i -= w;
    if (i < w) return RingPixel{std::int64_t(i), height - 1};
    i -= w;
    if (i < h) return RingPixel{0, std::int64_t(i)};
    i -= h;
    return RingPixel{width - 1, std::int64_t(i)};
}

/// Whether pixel (x, ·) with label @p l of a packed label row may be the first of its label: a
/// foreground pixel that does not continue a run of the same label from its left neighbour. The
/// first pixel (raster order) of every label passes; most others are filtered out, so an atomicMin
/// over the passing pixels finds the first pixels with little contention.
CCL_HD bool is_run_start(const std::uint32_t* row, std::int64_t x, std::uint32_t l) {
    return l != 0 && (x == 0 || row[x - 1] != l);
}

/// Global index of local pixel index @p li of tile @p r in an image @p image_width wide.
CCL_HD std::uint64_t global_index(const TileRect& r, std::int64_t image_width, std::uint64_t li) {
    const std::uint64_t w = std::uint64_t(r.width);
    return (std::uint64_t(r.y0) + li / w) * std::uint64_t(image_width) + std::uint64_t(r.x0) + li % w;
}

/// The seams of @p grid from the tiles' borders (infos[t] for tile t), empty ones dropped.
inline std::vector<Seam> grid_seams(const TileGrid& grid, const std::vector<TileInfo>& infos, int connectivity) {
    std::vector<Seam> seams;
    const std::uint64_t nx = grid.nx, ny = grid.ny;
    const bool eight = connectivity == 8;
    for (std::uint64_t t = 0; t < grid.count(); ++t) {
        const std::uint64_t i = t % nx, j = t / nx;
        auto add = [&](std::uint64_t u) {
            Seam s{t, u, seam_equivalences(infos[t], infos[u], connectivity)};
            if (!s.pairs.empty()) seams.push_back(std::move(s));
        };
        if (i + 1 < nx) add(t + 1);
        if (j + 1 < ny) add(t + nx);
        if (eight && i + 1 < nx && j + 1 < ny) add(t + nx + 1);
        if (eight && i > 0 && j + 1 < ny) add(t + nx - 1);
    }
    return seams;
}

}  // namespace cclabel::detail
