#include "cli/streamed.hpp"

#include "core/cores.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "cclabel/tiles.hpp"
#include "core/backends.hpp"
#include "core/parallel_for.hpp"
#include "core/tile_grid.hpp"

namespace cclabel::cli {

std::uint64_t band_bytes(std::int64_t width, PixelFormat format, std::int64_t band_rows) {
    return std::uint64_t(width) * std::uint64_t(band_rows) * std::uint64_t(bytes_per_pixel(format) + 4);
}

StreamPlan plan_stream(std::int64_t width, std::int64_t height, PixelFormat format, std::uint64_t band_budget,
                       const std::optional<TileSize>& tile) {
    const std::int64_t w = std::max<std::int64_t>(width, 1), h = std::max<std::int64_t>(height, 1);
    if (tile) return {std::min(tile->width, w), std::min(tile->height, h)};
    const std::uint64_t row = band_bytes(w, format, 1);
    const std::int64_t rows = std::int64_t(std::clamp<std::uint64_t>(band_budget / row, 1, std::uint64_t(h)));
    // A tile is labelled with uint32 labels: at most kMaxPixels pixels.
    const std::int64_t tw = std::int64_t(std::min<std::uint64_t>(std::uint64_t(w), kMaxPixels / std::uint64_t(rows)));
    return {tw, rows};
}

namespace {

/// One band's tiles labelled into @p local (tile i's labels packed at local + x0 · rows).
std::vector<TileInfo> label_band(const detail::TileGrid& grid, std::uint64_t band, const std::uint8_t* pixels,
                                 PixelFormat format, std::uint32_t* local, int workers, const Options& tile_options) {
    const int bpp = bytes_per_pixel(format);
    std::vector<TileInfo> infos(grid.nx);
    detail::parallel_for(grid.nx, workers, [&](std::uint64_t i) {
        const TileRect r = grid.rect(band * grid.nx + i);
        const ImageView tile = make_view(pixels + std::size_t(r.x0) * std::size_t(bpp), r.width, r.height, format,
                                         grid.W * bpp);
        infos[i] = label_tile(tile, r.x0, r.y0, grid.W, local + std::size_t(r.x0) * std::size_t(r.height), tile_options);
    });
    return infos;
}

template <typename L>
void write_band(const detail::TileGrid& grid, std::uint64_t band, const std::uint32_t* local, const Resolution& res,
                io::LabelRowWriter& out, std::vector<L>& rows_buf) {
    const TileRect first = grid.rect(band * grid.nx);
    const std::int64_t rows = first.height, W = grid.W;
    // Rows go out in chunks of about 1 MiB (at least one row).
    const std::int64_t chunk = std::clamp<std::int64_t>((std::int64_t(1) << 20) / (W * std::int64_t(sizeof(L))), 1, rows);
    rows_buf.resize(std::size_t(chunk) * std::size_t(W));
    for (std::int64_t y = 0; y < rows; y += chunk) {
        const std::int64_t n = std::min(chunk, rows - y);
        for (std::uint64_t i = 0; i < grid.nx; ++i) {
            const std::uint64_t t = band * grid.nx + i;
            const TileRect r = grid.rect(t);
            const std::uint32_t* src = local + std::size_t(r.x0) * std::size_t(rows) + std::size_t(y) * std::size_t(r.width);
            relabel_tile(src, r.width, n, res.maps[t], rows_buf.data() + r.x0, W);
        }
        out.write(rows_buf.data(), n);
    }
}

}  // namespace

StreamedResult label_streamed(const std::function<std::unique_ptr<io::TiffRowReader>()>& open,
                              const std::function<std::unique_ptr<io::LabelRowWriter>(int label_bytes)>& open_output,
                              const Options& options, const StreamPlan& plan, std::uint64_t uint32_limit) {
    std::unique_ptr<io::TiffRowReader> in = open();
    const std::int64_t W = in->width(), H = in->height();
    const PixelFormat format = in->format();
    const detail::TileGrid grid(W, H, plan.tile_width, plan.band_rows);
    if (grid.max_tile_pixels() > kMaxPixels)
        throw Error("tiles of " + std::to_string(grid.tw) + " x " + std::to_string(grid.th) + " pixels have more than " +
                    std::to_string(kMaxPixels) + " pixels (a tile is labelled with uint32 labels)");
    const std::uint64_t bands = grid.ny;
    const int bpp = bytes_per_pixel(format);

    StreamedResult result;
    result.tiles = grid.count();
    // Auto is resolved once for the largest tile and passed on, so that every tile (a short last
    // band too) runs on the backend the report names.
    const int threads = options.threads > 0 ? options.threads : cclabel::detail::usable_cores();
    const Backend use = detail::resolve_auto(
        options.backend, detail::Workload{detail::Workload::Op::Label, grid.max_tile_pixels(), format, threads});
    const int workers = use == Backend::Cuda ? 1 : int(std::min<std::uint64_t>(grid.nx, std::uint64_t(threads)));
    Options tile_options = options;
    tile_options.backend = use;
    tile_options.threads = std::max(1, threads / std::max(workers, 1));

    std::vector<std::uint8_t> pixels(std::size_t(W) * std::size_t(grid.th) * std::size_t(bpp));
    std::vector<std::uint32_t> local(std::size_t(W) * std::size_t(grid.th));

    // Pass 1: tiles, their tables, and the seams (within a band, and with the band above).
    std::vector<std::vector<std::uint64_t>> first(grid.count());
    std::vector<Seam> seams;
    std::vector<TileInfo> above;
    const bool eight = options.connectivity == 8;
    for (std::uint64_t b = 0; b < bands; ++b) {
        const std::int64_t rows = grid.rect(b * grid.nx).height;
        in->read(pixels.data(), rows);
        std::vector<TileInfo> infos = label_band(grid, b, pixels.data(), format, local.data(), workers, tile_options);
        auto add = [&](std::uint64_t ta, const TileInfo& a, std::uint64_t tb, const TileInfo& b_info) {
            Seam s{ta, tb, seam_equivalences(a, b_info, options.connectivity)};
            result.seam_pairs += s.pairs.size() / 2;
            // The list comes with the capacity of every neighbour pair before duplicates were
            // dropped (1.5 MiB for a 66,000-pixel seam): kept for every band, that was most of the memory.
            s.pairs.shrink_to_fit();
            if (!s.pairs.empty()) seams.push_back(std::move(s));
        };
        for (std::uint64_t i = 0; i < grid.nx; ++i) {
            const std::uint64_t t = b * grid.nx + i;
            if (i + 1 < grid.nx) add(t, infos[i], t + 1, infos[i + 1]);
            if (b == 0) continue;
            const std::uint64_t u = t - grid.nx;  // the tile above
            add(u, above[i], t, infos[i]);
            if (eight && i + 1 < grid.nx) add(u, above[i], t + 1, infos[i + 1]);
            if (eight && i > 0) add(u, above[i], t - 1, infos[i - 1]);
        }
        if (b > 0)
            for (std::uint64_t i = 0; i < grid.nx; ++i) first[(b - 1) * grid.nx + i] = std::move(above[i].first_index);
        above = std::move(infos);
    }
    for (std::uint64_t i = 0; i < above.size(); ++i) first[(bands - 1) * grid.nx + i] = std::move(above[i].first_index);
    std::vector<TileInfo>().swap(above);
    in.reset();
    // The band buffers go back before the resolve, whose tables (about 40 bytes a tile label at
    // their peak) are the other large item; pass 2 takes them again.
    std::vector<std::uint8_t>().swap(pixels);  // (`= {}` would keep the capacity)
    std::vector<std::uint32_t>().swap(local);

    const Resolution res = resolve_tiles(first, seams, threads);
    result.count = res.count;
    result.backend = use;
    result.label_bytes = res.count > uint32_limit ? 8 : 4;
    std::vector<std::uint64_t> sizes(grid.count());
    for (std::uint64_t t = 0; t < grid.count(); ++t) sizes[t] = first[t].size();
    std::vector<std::vector<std::uint64_t>>().swap(first);
    std::vector<Seam>().swap(seams);
    if (!open_output) return result;

    // Pass 2: the same tiles again, relabelled and written band by band.
    pixels.resize(std::size_t(W) * std::size_t(grid.th) * std::size_t(bpp));
    local.resize(std::size_t(W) * std::size_t(grid.th));
    in = open();
    if (in->width() != W || in->height() != H || in->format() != format)
        throw Error("the picture changed between the two passes");
    std::unique_ptr<io::LabelRowWriter> out = open_output(result.label_bytes);
    std::vector<std::uint32_t> rows32;
    std::vector<std::uint64_t> rows64;
    for (std::uint64_t b = 0; b < bands; ++b) {
        const std::int64_t rows = grid.rect(b * grid.nx).height;
        in->read(pixels.data(), rows);
        const std::vector<TileInfo> infos = label_band(grid, b, pixels.data(), format, local.data(), workers, tile_options);
        for (std::uint64_t i = 0; i < grid.nx; ++i)
            if (infos[i].count() != sizes[b * grid.nx + i])
                throw Error("the picture changed between the two passes (tile " + std::to_string(b * grid.nx + i) + ")");
        if (result.label_bytes == 4)
            write_band(grid, b, local.data(), res, *out, rows32);
        else
            write_band(grid, b, local.data(), res, *out, rows64);
    }
    out->close();
    return result;
}

}  // namespace cclabel::cli
