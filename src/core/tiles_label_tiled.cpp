// label_tiled(): the four steps of the tile API over a grid of tiles, tiles labelled in parallel.
// Local labels are parked in the output itself (its type, the tile's place) and relabelled there
// in place, so the only memory beyond the output is one tile per worker plus the per-tile tables.
#include <algorithm>
#include <string>

#include "core/cores.hpp"
#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "cclabel/tiles.hpp"
#include "core/backends.hpp"
#include "core/parallel_for.hpp"
#include "core/request.hpp"
#include "core/tiles_limit.hpp"
#include "core/tiles_backends.hpp"
#include "core/tiles_relabel.hpp"

namespace cclabel {
namespace {

constexpr std::uint64_t kMaxIndex = ~std::uint64_t(0) >> 1;

// The whole-image checks of the 64-bit path, which label() cannot make (it rejects more than
// kMaxPixels pixels): everything label() checks, with the pixel limit at 2^63 − 1.
void validate_large(const ImageView& image, const void* out, const Options& options) {
    // The option checks (format, connectivity, background, backend, threads) on an empty view.
    (void)detail::make_request(ImageView{nullptr, 0, 0, 0, image.format}, nullptr, options);
    detail::check_size_and_stride(image);
    if (image.width == 0 || image.height == 0) return;  // (pixels() would wrap for 2^40 x 2^40)
    if (std::uint64_t(image.height) > kMaxIndex / std::uint64_t(image.width))
        throw Error("image of " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                    " pixels has more than 2^63 - 1 pixels");
    const int bpp = bytes_per_pixel(image.format);
    if (std::uint64_t(image.width) > kMaxIndex / std::uint64_t(bpp))
        throw Error("a row of " + std::to_string(image.width) + " pixels overflows the address space");
    const std::int64_t row_bytes = image.width * bpp;
    const std::int64_t stride = image.row_bytes();
    if (stride < row_bytes)
        throw Error("row stride of " + std::to_string(stride) + " bytes is smaller than a row of " +
                    std::to_string(image.width) + " " + std::string(format_name(image.format)) + " pixels (" +
                    std::to_string(row_bytes) + " bytes)");
    if (std::uint64_t(stride) > kMaxIndex / std::uint64_t(image.height))
        throw Error("row stride " + std::to_string(stride) + " times height " + std::to_string(image.height) +
                    " overflows the address space");
    if (image.data == nullptr)
        throw Error("image data is null for a non-empty " + std::to_string(image.width) + " x " +
                    std::to_string(image.height) + " image");
    if (out == nullptr) throw Error("output label buffer is null for a non-empty image");
}

template <typename Out>
TiledResult label_grid(const ImageView& image, Out* out, const Options& options, std::int64_t tile_w,
                       std::int64_t tile_h) {
    if (tile_w < 1 || tile_h < 1)
        throw Error("tile size must be at least 1 x 1 (got " + std::to_string(tile_w) + " x " + std::to_string(tile_h) +
                    ")");
    if constexpr (sizeof(Out) == 4) {
        (void)detail::make_request(image, out, options);
        if (image.pixels() > detail::tiled_label_limit())
            throw Error("image of " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                        " pixels has more than " + std::to_string(detail::tiled_label_limit()) +
                        " pixels, more than uint32 labels can number (use 64-bit labels)");
    } else {
        validate_large(image, out, options);
    }
    const std::int64_t W = image.width, H = image.height;
    const std::int64_t tw = std::min(tile_w, std::max<std::int64_t>(W, 1)), th = std::min(tile_h, std::max<std::int64_t>(H, 1));
    if (std::uint64_t(th) > detail::tiled_label_limit() / std::uint64_t(tw))
        throw Error("tiles of " + std::to_string(tw) + " x " + std::to_string(th) + " pixels have more than " +
                    std::to_string(detail::tiled_label_limit()) + " pixels (a tile is labelled with uint32 labels)");

    // Either backend takes every tile (the GPU streams them, the CPU spreads them over its threads):
    // Auto weighs the whole picture.
    const Backend use = detail::resolve_auto(
        options.backend, detail::Workload{detail::Workload::Op::Label, image.pixels(), image.format,
                                          options.threads > 0 ? options.threads : detail::usable_cores()});
    if (image.pixels() == 0) return TiledResult{0, use};
    // The GPU: the streamed tile pipeline (src/cuda/tiles_cuda.cu), when the labelled tiles fit in
    // its memory; otherwise the loop below labels one tile at a time through label(). The pipeline
    // joins equal values only: with a tolerance, the loop's label() calls take the GPU's tolerance path.
    if (use == Backend::Cuda && options.tolerance == 0) {
        std::uint64_t n = 0;
        if (detail::cuda_label_tiled(image, out, options, tw, th, n)) return TiledResult{n, use};
    }

    const std::uint64_t nx = std::uint64_t((W + tw - 1) / tw), ny = std::uint64_t((H + th - 1) / th);
    const std::uint64_t tiles = nx * ny;
    auto rect = [&](std::uint64_t t) {
        const std::int64_t x0 = std::int64_t(t % nx) * tw, y0 = std::int64_t(t / nx) * th;
        return TileRect{x0, y0, std::min(tw, W - x0), std::min(th, H - y0)};
    };
    const int threads = options.threads > 0 ? options.threads : detail::usable_cores();
    // The CPU spreads tiles over its threads (and a thread's share of the rest over each tile when
    // there are fewer tiles than threads). One GPU takes the tiles one after another: the place
    // where the streamed GPU tile pipeline replaces this loop.
    const int workers = use == Backend::Cpu ? int(std::min<std::uint64_t>(tiles, std::uint64_t(threads))) : 1;
    Options tile_options = options;
    tile_options.backend = use;
    tile_options.threads = std::max(1, threads / std::max(workers, 1));

    // 1. Label every tile; park its local labels in the output.
    std::vector<TileInfo> infos(tiles);
    detail::parallel_for(tiles, workers, [&](std::uint64_t t) {
        const TileRect r = rect(t);
        const ImageView tv = tile_view(image, r);
        Out* dst = out + std::uint64_t(r.y0) * std::uint64_t(W) + std::uint64_t(r.x0);
        if constexpr (sizeof(Out) == 4) {
            if (r.width == W) {  // whole rows: the tile's packed labels are the output's rows
                infos[t] = label_tile(tv, r.x0, r.y0, W, reinterpret_cast<std::uint32_t*>(dst), tile_options);
                return;
            }
        }
        std::vector<std::uint32_t> local(std::size_t(r.width * r.height));
        infos[t] = label_tile(tv, r.x0, r.y0, W, local.data(), tile_options);
        for (std::int64_t y = 0; y < r.height; ++y)
            std::copy_n(local.data() + y * r.width, r.width, dst + std::uint64_t(y) * std::uint64_t(W));
    });

    // 2. The seams of each tile with its right, lower, and (8-connectivity) two lower diagonal neighbours.
    const bool eight = options.connectivity == 8;
    std::vector<Seam> seams(4 * tiles);
    detail::parallel_for(tiles, workers, [&](std::uint64_t t) {
        const std::uint64_t i = t % nx, j = t / nx;
        auto add = [&](int k, std::uint64_t u) {
            seams[4 * t + std::uint64_t(k)] = Seam{t, u, seam_equivalences(infos[t], infos[u], options.connectivity)};
        };
        if (i + 1 < nx) add(0, t + 1);
        if (j + 1 < ny) add(1, t + nx);
        if (eight && i + 1 < nx && j + 1 < ny) add(2, t + nx + 1);
        if (eight && i > 0 && j + 1 < ny) add(3, t + nx - 1);
    });
    std::erase_if(seams, [](const Seam& s) { return s.pairs.empty(); });

    // 3. Resolve.
    std::vector<std::vector<std::uint64_t>> first(tiles);
    for (std::uint64_t t = 0; t < tiles; ++t) first[t] = std::move(infos[t].first_index);
    infos = {};
    const Resolution res = resolve_tiles(first, seams, options.threads);
    first = {};

    // 4. Relabel every tile in place.
    detail::parallel_for(tiles, workers, [&](std::uint64_t t) {
        const TileRect r = rect(t);
        Out* dst = out + std::uint64_t(r.y0) * std::uint64_t(W) + std::uint64_t(r.x0);
        detail::relabel_strided(dst, W, r.width, r.height, res.maps[t], dst, W);
    });
    return TiledResult{res.count, use};
}

}  // namespace

TiledResult label_tiled(const ImageView& image, std::uint32_t* out, const Options& options, std::int64_t tile_w,
                        std::int64_t tile_h) {
    return label_grid(image, out, options, tile_w, tile_h);
}

TiledResult label_tiled(const ImageView& image, std::uint64_t* out, const Options& options, std::int64_t tile_w,
                        std::int64_t tile_h) {
    return label_grid(image, out, options, tile_w, tile_h);
}

}  // namespace cclabel
