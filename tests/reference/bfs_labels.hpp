#pragma once
// The tests' reference labeller: a breadth-first search from each unlabelled pixel in raster order,
// obviously correct and sharing no code with the library. Callers say only what joins two
// neighbours (equal keys in flood_fill.hpp, close channels in tolerance_flood_fill.hpp), so every
// such rule is checked by one search; tests/python/conftest.py's bfs_labels is its Python twin.
#include <cstdint>
#include <deque>
#include <vector>

namespace cclabel::test {

/// Labels a @p width × @p height picture (pixels by row-major index): background pixels get 0 and
/// join nothing; any other pixel p steps to its 4- or 8-neighbour q when joins(p, q). Regions are
/// numbered 1..N by their first pixel; N goes to @p count.
template <typename IsBackground, typename Joins>
std::vector<std::uint32_t> bfs_labels(std::int64_t width, std::int64_t height, int connectivity,
                                      IsBackground&& is_background, Joins&& joins, std::uint32_t* count = nullptr) {
    const std::int64_t n_px = width * height;
    std::vector<std::uint32_t> out(std::size_t(n_px), 0);
    std::vector<bool> done(std::size_t(n_px), false);
    std::uint32_t n = 0;
    std::deque<std::int64_t> queue;
    for (std::int64_t start = 0; start < n_px; ++start) {
        if (done[std::size_t(start)]) continue;
        done[std::size_t(start)] = true;
        if (is_background(start)) continue;
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
                    if (done[std::size_t(q)] || is_background(q) || !joins(p, q)) continue;
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
