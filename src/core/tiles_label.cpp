// Step 1 of the tile API: a tile's sub-view, its local labels, the global index of each local
// label's first pixel and its border (keys and labels) for the seams.
#include <string>

#include "cclabel/detail/pixel_traits.hpp"
#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "cclabel/tiles.hpp"
#include "core/request.hpp"

namespace cclabel {

ImageView tile_view(const ImageView& image, const TileRect& t) {
    const auto name = [&] {
        return "tile (" + std::to_string(t.x0) + ", " + std::to_string(t.y0) + ") of " + std::to_string(t.width) +
               " x " + std::to_string(t.height);
    };
    if (t.x0 < 0 || t.y0 < 0 || t.width < 0 || t.height < 0)
        throw Error(name() + ": origin and size must not be negative");
    if (t.x0 > image.width || t.width > image.width - t.x0 || t.y0 > image.height || t.height > image.height - t.y0)
        throw Error(name() + " is not inside the " + std::to_string(image.width) + " x " +
                    std::to_string(image.height) + " image");
    ImageView v = image;
    v.width = t.width;
    v.height = t.height;
    v.stride = image.row_bytes();  // the parent's, also when it was 0 (packed)
    if (t.width > 0 && t.height > 0 && image.data)
        v.data = static_cast<const std::uint8_t*>(image.data) + t.y0 * v.stride + t.x0 * bytes_per_pixel(image.format);
    return v;
}

TileInfo label_tile(const ImageView& tile, std::int64_t x0, std::int64_t y0, std::int64_t image_width,
                    std::uint32_t* labels, const Options& options) {
    if (x0 < 0 || y0 < 0)
        throw Error("tile origin (" + std::to_string(x0) + ", " + std::to_string(y0) + ") must not be negative");
    const detail::Request r = detail::make_request(tile, labels, options);
    if (image_width < 0 || x0 > image_width || r.width > image_width - x0)
        throw Error("tile at x0 = " + std::to_string(x0) + ", " + std::to_string(r.width) +
                    " pixels wide, reaches past the image width " + std::to_string(image_width));
    // The largest global index, (y0 + h − 1)·W + x0 + w − 1, must fit 64 bits.
    if (r.height > 0 && image_width > 0 &&
        std::uint64_t(y0 + r.height) > (~std::uint64_t(0) >> 1) / std::uint64_t(image_width))
        throw Error("tile at y0 = " + std::to_string(y0) + ": global pixel indices overflow 64 bits");

    TileInfo info;
    info.rect = TileRect{x0, y0, r.width, r.height};
    info.image_width = image_width;
    info.format = r.format;
    info.tolerance = r.tolerance;
    const std::uint64_t px = r.pixels();
    if (px == 0) return info;

    const std::uint32_t n = label(tile, labels, options).count;
    info.first_index.resize(n);
    // Labels are numbered in raster order of their first pixels, so label k + 1 first appears at the
    // first pixel, after label k's, that carries it: one pass finds them all.
    std::uint32_t seen = 0;
    const std::int64_t w = r.width, h = r.height;
    for (std::int64_t y = 0; y < h && seen < n; ++y) {
        const std::uint32_t* row = labels + y * w;
        const std::uint64_t base = std::uint64_t(y0 + y) * std::uint64_t(image_width) + std::uint64_t(x0);
        for (std::int64_t x = 0; x < w; ++x)
            if (row[x] == seen + 1) info.first_index[seen++] = base + std::uint64_t(x);
    }
    if (seen != n) throw Error("label_tile: internal error: labels are not numbered in raster order");

    info.edge_keys.resize(std::size_t(2 * (w + h)));
    info.edge_labels.resize(info.edge_keys.size());
    detail::dispatch_format(r.format, [&]<PixelFormat F>() {
        using T = detail::PixelTraits<F>;
        auto put = [&](std::size_t at, std::int64_t x, std::int64_t y) {
            info.edge_keys[at] = T::key(r.row(y) + x * T::kBytes);
            info.edge_labels[at] = labels[y * w + x];
        };
        for (std::int64_t x = 0; x < w; ++x) {
            put(std::size_t(x), x, 0);
            put(std::size_t(w + x), x, h - 1);
        }
        for (std::int64_t y = 0; y < h; ++y) {
            put(std::size_t(2 * w + y), 0, y);
            put(std::size_t(2 * w + h + y), w - 1, y);
        }
        return 0;
    });
    return info;
}

}  // namespace cclabel
