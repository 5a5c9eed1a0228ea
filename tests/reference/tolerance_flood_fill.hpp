#pragma once
// The obviously-correct reference for tolerance labelling: a breadth-first flood fill from each
// unlabelled pixel in raster order that steps to a neighbour when every channel differs by at most
// the tolerance. Pixels are given as channel values, so it shares no code with the library's readers.
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace cclabel::test {

/// @p channels: per pixel (row-major), @p nch values; @p background: a pixel whose channels all
/// equal it is labelled 0 and joins nothing.
inline std::vector<std::uint32_t> tolerance_flood_fill(const std::vector<std::uint64_t>& channels, int nch,
                                                       std::int64_t width, std::int64_t height, int connectivity,
                                                       std::uint64_t tolerance,
                                                       const std::optional<std::vector<std::uint64_t>>& background,
                                                       std::uint32_t* count = nullptr) {
    const std::int64_t n_px = width * height;
    auto at = [&](std::int64_t p, int c) { return channels[std::size_t(p * nch + c)]; };
    auto is_bg = [&](std::int64_t p) {
        if (!background) return false;
        for (int c = 0; c < nch; ++c)
            if (at(p, c) != (*background)[std::size_t(c)]) return false;
        return true;
    };
    auto close = [&](std::int64_t p, std::int64_t q) {
        for (int c = 0; c < nch; ++c) {
            const std::uint64_t a = at(p, c), b = at(q, c);
            if ((a > b ? a - b : b - a) > tolerance) return false;
        }
        return true;
    };
    std::vector<std::uint32_t> out(std::size_t(n_px), 0);
    std::vector<bool> done(std::size_t(n_px), false);
    std::uint32_t n = 0;
    std::deque<std::int64_t> queue;
    for (std::int64_t start = 0; start < n_px; ++start) {
        if (done[std::size_t(start)]) continue;
        done[std::size_t(start)] = true;
        if (is_bg(start)) continue;
        out[std::size_t(start)] = ++n;
        queue.push_back(start);
        while (!queue.empty()) {
            const std::int64_t p = queue.front();
            queue.pop_front();
            const std::int64_t x = p % width, y = p / width;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    if ((dx == 0 && dy == 0) || (connectivity == 4 && dx != 0 && dy != 0)) continue;
                    const std::int64_t nx = x + dx, ny = y + dy;
                    if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
                    const std::int64_t q = ny * width + nx;
                    if (done[std::size_t(q)] || is_bg(q) || !close(p, q)) continue;
                    done[std::size_t(q)] = true;
                    out[std::size_t(q)] = n;
                    queue.push_back(q);
                }
        }
    }
    if (count) *count = n;
    return out;
}

}  // namespace cclabel::test
