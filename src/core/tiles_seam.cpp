// Step 2 of the tile API: the equivalences across the seam between two tiles, from their borders.
#include <algorithm>
#include <string>

#include "cclabel/detail/pixel_traits.hpp"
#include "cclabel/error.hpp"
#include "cclabel/tiles.hpp"
#include "cuda/kernels/close_keys.cuh"

namespace cclabel {
namespace {

void check_border(const TileInfo& t, const char* which) {
    const TileRect& r = t.rect;
    if (r.x0 < 0 || r.y0 < 0 || r.width < 0 || r.height < 0)
        throw Error(std::string("seam: tile ") + which + " has a negative origin or size");
    const std::uint64_t want = r.width > 0 && r.height > 0 ? 2 * std::uint64_t(r.width + r.height) : 0;
    if (t.edge_keys.size() != want || t.edge_labels.size() != want)
        throw Error(std::string("seam: tile ") + which + " has " + std::to_string(t.edge_keys.size()) + " edge keys and " +
                    std::to_string(t.edge_labels.size()) + " edge labels, expected " + std::to_string(want) +
                    " (2 x (width + height))");
    for (std::uint32_t l : t.edge_labels)
        if (l > t.count())
            throw Error(std::string("seam: tile ") + which + " has edge label " + std::to_string(l) + " but only " +
                        std::to_string(t.count()) + " labels");
}

// Positions in the border ring (see TileInfo).
std::size_t right_col(const TileRect& r, std::int64_t y) { return std::size_t(2 * r.width + r.height + (y - r.y0)); }
std::size_t left_col(const TileRect& r, std::int64_t y) { return std::size_t(2 * r.width + (y - r.y0)); }
std::size_t bottom_row(const TileRect& r, std::int64_t x) { return std::size_t(r.width + (x - r.x0)); }
std::size_t top_row(const TileRect& r, std::int64_t x) { return std::size_t(x - r.x0); }

}  // namespace

std::vector<std::uint32_t> seam_equivalences(const TileInfo& a, const TileInfo& b, int connectivity) {
    if (connectivity != 4 && connectivity != 8)
        throw Error("connectivity must be 4 or 8 (got " + std::to_string(connectivity) + ")");
    check_border(a, "a");
    check_border(b, "b");
    const TileRect &ra = a.rect, &rb = b.rect;
    std::vector<std::uint32_t> pairs;
    if (ra.width == 0 || ra.height == 0 || rb.width == 0 || rb.height == 0) return pairs;
    if (a.image_width != b.image_width)
        throw Error("seam: the tiles belong to images of different widths (" + std::to_string(a.image_width) + " and " +
                    std::to_string(b.image_width) + ")");
    const bool overlap_x = ra.x0 < rb.x0 + rb.width && rb.x0 < ra.x0 + ra.width;
    const bool overlap_y = ra.y0 < rb.y0 + rb.height && rb.y0 < ra.y0 + ra.height;
    if (overlap_x && overlap_y) throw Error("seam: the tiles overlap");
    if (a.tolerance != b.tolerance || (a.tolerance != 0 && a.format != b.format))
        throw Error("seam: the tiles were labelled with different tolerances or formats (tolerance " +
                    std::to_string(a.tolerance) + " " + std::string(format_name(a.format)) + " and " +
                    std::to_string(b.tolerance) + " " + std::string(format_name(b.format)) + ")");

    const int reach = connectivity == 8 ? 1 : 0;  // how far along the seam a neighbour may lie
    // Along a seam neighbouring pixels mostly repeat the same pair (and with 8-connectivity each
    // pixel meets up to three, mostly the same): a pair equal to one of the last two pushed is
    // left out here, which the sort and dedupe below would drop anyway, so that they sort a few
    // pairs a region rather than up to three a pixel (the streamed GPU pipeline computes the seams
    // on the host between tiles).
    // With a tolerance, keys join as the labeller joined pixels inside the tiles: close in every
    // channel of the format's key (background pixels carry label 0 and join nothing either way).
    const std::uint32_t tol = a.tolerance;
    const auto keys_join = [&](std::uint32_t ka, std::uint32_t kb) {
        if (ka == kb) return true;
        if (tol == 0) return false;
        return detail::dispatch_format(a.format, [&]<PixelFormat F>() { return cuda::detail::keys_close<F>(ka, kb, tol); });
    };
    auto join = [&](std::size_t ia, std::size_t ib) {
        const std::uint32_t la = a.edge_labels[ia], lb = b.edge_labels[ib];
        if (la != 0 && lb != 0 && keys_join(a.edge_keys[ia], b.edge_keys[ib])) {
            const std::size_t n = pairs.size();
            if (n >= 2 && pairs[n - 2] == la && pairs[n - 1] == lb) return;
            if (n >= 4 && pairs[n - 4] == la && pairs[n - 3] == lb) return;
            pairs.push_back(la);
            pairs.push_back(lb);
        }
    };
    // A vertical seam: one tile's right column against the other's left column. Each border pixel
    // of the left tile meets the right tile's pixels at rows y − reach .. y + reach.
    auto vertical = [&](bool a_left) {
        const TileRect &l = a_left ? ra : rb, &r = a_left ? rb : ra;
        if (l.x0 + l.width != r.x0) return;
        const std::int64_t lo = std::max(l.y0, r.y0 - reach), hi = std::min(l.y0 + l.height, r.y0 + r.height + reach);
        for (std::int64_t y = lo; y < hi; ++y)
            for (std::int64_t yr = std::max(y - reach, r.y0); yr <= std::min(y + reach, r.y0 + r.height - 1); ++yr)
                a_left ? join(right_col(l, y), left_col(r, yr)) : join(left_col(r, yr), right_col(l, y));
    };
    auto horizontal = [&](bool a_above) {
        const TileRect &t = a_above ? ra : rb, &u = a_above ? rb : ra;
        if (t.y0 + t.height != u.y0) return;
        const std::int64_t lo = std::max(t.x0, u.x0 - reach), hi = std::min(t.x0 + t.width, u.x0 + u.width + reach);
        for (std::int64_t x = lo; x < hi; ++x)
            for (std::int64_t xu = std::max(x - reach, u.x0); xu <= std::min(x + reach, u.x0 + u.width - 1); ++xu)
                a_above ? join(bottom_row(t, x), top_row(u, xu)) : join(top_row(u, xu), bottom_row(t, x));
    };
    vertical(true);
    vertical(false);
    horizontal(true);
    horizontal(false);

    // Sort as 64-bit words, dedupe.
    std::vector<std::uint64_t> packed(pairs.size() / 2);
    for (std::size_t i = 0; i < packed.size(); ++i) packed[i] = std::uint64_t(pairs[2 * i]) << 32 | pairs[2 * i + 1];
    std::sort(packed.begin(), packed.end());
    packed.erase(std::unique(packed.begin(), packed.end()), packed.end());
    pairs.resize(2 * packed.size());
    for (std::size_t i = 0; i < packed.size(); ++i) {
        pairs[2 * i] = std::uint32_t(packed[i] >> 32);
        pairs[2 * i + 1] = std::uint32_t(packed[i]);
    }
    return pairs;
}

}  // namespace cclabel
