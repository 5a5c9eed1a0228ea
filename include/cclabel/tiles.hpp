#pragma once
/// @file tiles.hpp
/// @brief Labelling an image tile by tile: the steps as a public API (so that another scheduler,
/// e.g. a Dask graph, can drive them) and label_tiled(), which runs them on threads.
///
/// The steps, for tiles that cover the image without overlapping (any tiling, not only a grid):
///   1. label_tile() on every tile, in any order and anywhere: local labels 1..n in raster order of
///      the tile, the global pixel index (y·W + x) of each local label's first pixel, and the
///      tile's border pixels (keys and labels), all in a TileInfo;
///   2. seam_equivalences() on every pair of tiles that touch (faces, and for 8-connectivity corners
///      too): pairs (local label in A, local label in B) of regions that continue across the seam;
///   3. resolve_tiles() on every tile's first_index and every seam: a union-find over
///      (tile, local label) whose roots keep the smallest global index; global labels are the ranks
///      of the roots' indices, i.e. 1..N in global raster order of each region's first pixel;
///   4. relabel_tile() on every tile through its map.
/// The result equals cclabel::label() on the whole image, value for value.
///
/// Every structure is plain integers in std::vectors so that it serialises as it is (a tuple of
/// arrays in Python). Pixel indices are 64-bit throughout: the whole image may have more than
/// 2^32 − 1 pixels as long as each tile has at most that many.
#include <cstdint>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel {

/// Where a tile lies in the whole image (pixels).
struct TileRect {
    std::int64_t x0 = 0, y0 = 0, width = 0, height = 0;
};

/// What labelling one tile gives besides its label image.
///
/// Border layout of edge_keys / edge_labels (2·width + 2·height entries, corners appear twice):
///   [0, width)                  top row, left to right
///   [width, 2·width)            bottom row, left to right
///   [2·width, 2·width + height) left column, top to bottom
///   [2·width + height, end)     right column, top to bottom
/// A key is the pixel's equality key: two pixels are the same value exactly when their keys are
/// equal (Binary8: 0/1; Gray8/Gray16/U32: the value; RGB8: r | g<<8 | b<<16; RGBA8: … | a<<24).
/// A label of 0 is background: it joins nothing.
struct TileInfo {
    TileRect rect;
    std::int64_t image_width = 0;  ///< W of the whole image: global index = y·W + x
    /// first_index[l − 1] = global index of the first pixel (raster order) of local label l;
    /// strictly ascending, one entry per local label (its size is the tile's label count n).
    std::vector<std::uint64_t> first_index;
    std::vector<std::uint32_t> edge_keys;
    std::vector<std::uint32_t> edge_labels;
    /// The tile's format and Options::tolerance: with a tolerance, seam_equivalences() joins border
    /// pixels whose keys are close in every channel, as the labeller joined them inside the tile.
    PixelFormat format = PixelFormat::Binary8;
    std::uint32_t tolerance = 0;

    std::uint32_t count() const noexcept { return std::uint32_t(first_index.size()); }
};

/// The equivalences found across one seam, for resolve_tiles().
struct Seam {
    std::uint64_t tile_a = 0, tile_b = 0;  ///< positions in resolve_tiles()'s list of tiles
    /// Flattened pairs: label_a, label_b, label_a, label_b, … (local labels, each ≥ 1).
    std::vector<std::uint32_t> pairs;
};

/// What resolve_tiles() gives.
struct Resolution {
    std::uint64_t count = 0;  ///< N, background excluded; may exceed 2^32 − 1
    /// maps[t][l] = global label (1..N) of local label l of tile t; maps[t][0] = 0 (background).
    /// 64-bit whatever N is: one type for every caller; relabel_tile() narrows to uint32 with a check.
    std::vector<std::vector<std::uint64_t>> maps;
};

/// The sub-view of @p image covering @p rect (same data, the parent's stride): what label_tile()
/// takes for a tile of an image in memory. Throws Error when @p rect is empty-negative or not
/// inside the image.
ImageView tile_view(const ImageView& image, const TileRect& rect);

/// Labels one tile whose top-left pixel is (@p x0, @p y0) of an image @p image_width pixels wide.
/// @p tile holds the tile's pixels only (a sub-view of the whole image, or a copy); @p labels gets
/// tile.width × tile.height local labels (packed, row-major), exactly cclabel::label(tile) — so any
/// backend of @p options runs it. Throws Error on bad arguments (those of label(), a negative
/// origin, or a tile reaching past @p image_width).
TileInfo label_tile(const ImageView& tile, std::int64_t x0, std::int64_t y0, std::int64_t image_width,
                    std::uint32_t* labels, const Options& options = {});

/// The pairs (local label in @p a, local label in @p b) of regions that continue from tile @p a
/// into tile @p b: pixels on the two tiles' borders that are neighbours under @p connectivity
/// (4: faces; 8: faces, their diagonals and a corner where the tiles meet only at a corner), have
/// equal keys (with the tiles' tolerance: keys within it in every channel) and are not
/// background. Sorted, without duplicates; empty when the tiles do not touch. Reads only the
/// TileInfos' borders. Throws Error for tiles that overlap, belong to images of different widths,
/// carry malformed borders or different formats or tolerances, or a connectivity other than 4 or 8.
std::vector<std::uint32_t> seam_equivalences(const TileInfo& a, const TileInfo& b, int connectivity);

/// Resolves the seams of many tiles. @p first_index[t] is tile t's TileInfo::first_index; each
/// Seam names two tiles by their position in @p first_index. Throws Error for a tile index or a
/// label out of range, an odd pair list, a first_index that is not strictly ascending, or two
/// labels claiming the same first pixel (tiles that overlap). Above 2^18 labels the numbering runs
/// on @p threads threads (0: all cores, as Options::threads); the result never depends on it.
Resolution resolve_tiles(const std::vector<std::vector<std::uint64_t>>& first_index, const std::vector<Seam>& seams,
                         int threads = 0);

/// Writes global labels of a tile: out[y·out_stride + x] = map[local[y·width + x]] for the
/// tile's width × height local labels. @p out_stride (elements, ≥ width) lets @p out be the tile's
/// place in the whole label image (out = whole + y0·W + x0, out_stride = W). Throws Error for a
/// local label without an entry in @p map and, for uint32 output, for a global label above
/// 2^32 − 1 (use the uint64 overload).
void relabel_tile(const std::uint32_t* local, std::int64_t width, std::int64_t height,
                  const std::vector<std::uint64_t>& map, std::uint32_t* out, std::int64_t out_stride);
void relabel_tile(const std::uint32_t* local, std::int64_t width, std::int64_t height,
                  const std::vector<std::uint64_t>& map, std::uint64_t* out, std::int64_t out_stride);

/// What label_tiled() reports.
struct TiledResult {
    std::uint64_t count = 0;  ///< N, background excluded
    Backend backend = Backend::Cpu;  ///< the backend that labelled the tiles
};

/// Labels @p image tile by tile (tiles of @p tile_w × @p tile_h, the last column and row of tiles
/// ragged; a tile larger than the image is clipped to it) with the steps above, tiles labelled in
/// parallel on options.threads threads (Backend::Cpu), and gives exactly cclabel::label()'s labels.
/// @p out holds width × height labels, packed. Throws Error on the arguments label() rejects and on
/// a tile size below 1 or a (clipped) tile of more than 2^32 − 1 pixels.
TiledResult label_tiled(const ImageView& image, std::uint32_t* out, const Options& options, std::int64_t tile_w,
                        std::int64_t tile_h);

/// The same with 64-bit labels: the image may have more than 2^32 − 1 pixels (each tile at most
/// that many); N may exceed 2^32 − 1. All index arithmetic is 64-bit.
TiledResult label_tiled(const ImageView& image, std::uint64_t* out, const Options& options, std::int64_t tile_w,
                        std::int64_t tile_h);

}  // namespace cclabel
