// The correctness certificate. A labelling is right exactly when
//   1. background pixels, and only they, are 0;
//   2. every label's pixels share one value;
//   3. neighbouring same-valued foreground pixels share a label (regions are maximal);
//   4. every label is connected (one flood from its first pixel reaches all of it);
//   5. labels are exactly 1..N, first occurrences in increasing raster order.
// Checks 1, 2, 3 and 5 are one raster pass; check 4 is one flood per label over a visited bitmap,
// so the whole certificate is O(pixels) and needs no second labeller.
#include "cclabel/verify.hpp"

#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/detail/pixel_traits.hpp"
#include "core/request.hpp"

namespace cclabel {
namespace {

VerifyReport fail(std::int64_t x, std::int64_t y, std::string msg) {
    VerifyReport r;
    r.ok = false;
    r.x = x;
    r.y = y;
    r.message = "at (" + std::to_string(x) + ", " + std::to_string(y) + "): " + std::move(msg);
    return r;
}

template <PixelFormat F>
VerifyReport verify_impl(const detail::Request& r, const std::uint32_t* lab) {
    using T = detail::PixelTraits<F>;
    const std::int64_t w = r.width, h = r.height;
    auto key = [&](std::int64_t x, std::int64_t y) { return T::key(r.row(y) + x * T::kBytes); };
    auto is_bg = [&](std::uint32_t k) { return r.has_background && k == r.background_key; };
    auto at = [&](std::int64_t x, std::int64_t y) { return lab[std::size_t(y) * std::size_t(w) + std::size_t(x)]; };

    std::vector<std::uint32_t> label_key{0};       // index 0 unused
    std::vector<std::uint64_t> label_first{0};     // first pixel index of each label
    std::uint32_t n = 0;
    for (std::int64_t y = 0; y < h; ++y) {
        for (std::int64_t x = 0; x < w; ++x) {
            const std::uint32_t k = key(x, y);
            const std::uint32_t l = at(x, y);
            if (is_bg(k)) {
                if (l != 0) return fail(x, y, "background pixel has label " + std::to_string(l) + ", expected 0");
                continue;
            }
            if (l == 0) return fail(x, y, "foreground pixel has label 0");
            if (l > n) {
                if (l != n + 1)
                    return fail(x, y, "label " + std::to_string(l) + " first appears before label " +
                                          std::to_string(n + 1) + " (labels must be 1..N in raster order)");
                n = l;
                label_key.push_back(k);
                label_first.push_back(std::uint64_t(y) * std::uint64_t(w) + std::uint64_t(x));
            } else if (label_key[l] != k) {
                return fail(x, y, "label " + std::to_string(l) + " covers pixels of two different values");
            }
            // Earlier neighbours of the same value must carry the same label.
            const std::int64_t dxs[4] = {-1, -1, 0, 1};
            const std::int64_t dys[4] = {0, -1, -1, -1};
            for (int d = 0; d < 4; ++d) {
                if (r.connectivity == 4 && (d == 1 || d == 3)) continue;
                const std::int64_t nx = x + dxs[d], ny = y + dys[d];
                if (nx < 0 || ny < 0 || nx >= w) continue;
                if (key(nx, ny) == k && at(nx, ny) != l)
                    return fail(x, y, "same-valued neighbour (" + std::to_string(nx) + ", " + std::to_string(ny) +
                                          ") has label " + std::to_string(at(nx, ny)) + ", this pixel " +
                                          std::to_string(l) + " (a region is split)");
            }
        }
    }

    // Connectedness: flood each label from its first pixel; any pixel left unvisited is cut off.
    const std::uint64_t total = std::uint64_t(w) * std::uint64_t(h);
    std::vector<std::uint64_t> visited((total + 63) / 64, 0);
    auto seen = [&](std::uint64_t i) { return (visited[i >> 6] >> (i & 63)) & 1u; };
    auto mark = [&](std::uint64_t i) { visited[i >> 6] |= std::uint64_t(1) << (i & 63); };
    std::vector<std::uint64_t> queue;
    for (std::uint32_t l = 1; l <= n; ++l) {
        queue.clear();
        queue.push_back(label_first[l]);
        mark(label_first[l]);
        for (std::size_t q = 0; q < queue.size(); ++q) {
            const std::int64_t x = std::int64_t(queue[q] % std::uint64_t(w));
            const std::int64_t y = std::int64_t(queue[q] / std::uint64_t(w));
            for (std::int64_t dy = -1; dy <= 1; ++dy)
                for (std::int64_t dx = -1; dx <= 1; ++dx) {
                    if ((dx == 0 && dy == 0) || (r.connectivity == 4 && dx != 0 && dy != 0)) continue;
                    const std::int64_t nx = x + dx, ny = y + dy;
                    if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                    const std::uint64_t ni = std::uint64_t(ny) * std::uint64_t(w) + std::uint64_t(nx);
                    if (!seen(ni) && at(nx, ny) == l) {
                        mark(ni);
                        queue.push_back(ni);
                    }
                }
        }
    }
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) {
            const std::uint64_t i = std::uint64_t(y) * std::uint64_t(w) + std::uint64_t(x);
            if (at(x, y) != 0 && !seen(i))
                return fail(x, y, "label " + std::to_string(at(x, y)) +
                                      " is not connected: this pixel is not reachable from its first pixel");
        }
    VerifyReport ok;
    ok.count = n;
    return ok;
}

}  // namespace

VerifyReport verify(const ImageView& image, const std::uint32_t* labels, const Options& options) {
    const detail::Request r = detail::make_request(image, labels, options);
    // The certificate is of exact-value regions: a tolerance's regions would fail it, wrongly.
    if (r.tolerance > 0)
        throw Error("verify: tolerance " + std::to_string(r.tolerance) +
                    " is not supported (verify certifies exact-value labels only)");
    if (r.pixels() == 0) return VerifyReport{};
    return detail::dispatch_format(r.format, [&]<PixelFormat F>() { return verify_impl<F>(r, labels); });
}

}  // namespace cclabel
