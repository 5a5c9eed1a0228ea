#pragma once
// The obviously-correct reference labeller: a breadth-first flood fill from each unlabelled pixel in
// raster order. Lives in the tests only; every fast path is compared with it label for label.
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace cclabel::test {

/// @p values: one key per pixel (row-major, width × height); @p background: key labelled 0.
inline std::vector<std::uint32_t> flood_fill(const std::vector<std::uint64_t>& values, std::int64_t width,
                                             std::int64_t height, int connectivity,
                                             std::optional<std::uint64_t> background, std::uint32_t* count = nullptr) {
    std::vector<std::uint32_t> out(values.size(), 0);
    std::vector<bool> done(values.size(), false);
    std::uint32_t n = 0;
    std::deque<std::int64_t> queue;
    for (std::int64_t start = 0; start < width * height; ++start) {
        if (done[std::size_t(start)]) continue;
        const std::uint64_t v = values[std::size_t(start)];
        done[std::size_t(start)] = true;
        if (background && v == *background) continue;
        ++n;
        out[std::size_t(start)] = n;
        queue.push_back(start);
        while (!queue.empty()) {
            const std::int64_t p = queue.front();
            queue.pop_front();
            const std::int64_t x = p % width, y = p / width;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    if (dx == 0 && dy == 0) continue;
                    if (connectivity == 4 && dx != 0 && dy != 0) continue;
                    const std::int64_t nx = x + dx, ny = y + dy;
                    if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
                    const std::int64_t q = ny * width + nx;
                    if (done[std::size_t(q)] || values[std::size_t(q)] != v) continue;
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
