#pragma once
// The obviously-correct reference labeller for volumes: a breadth-first flood fill from each
// unlabelled voxel in raster order (z, then y, then x) over the 6, 18 or 26 neighbour offsets, so
// regions are numbered 1..N in raster order of their first voxels. Tests only.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <optional>
#include <vector>

namespace cclabel::test {

struct Offset3 {
    int dx, dy, dz;
};

/// The offsets of the @p connectivity-neighbourhood (6: faces, 18: and edges, 26: and corners):
/// every offset in {-1, 0, 1}^3 but 0 with at most 1, 2 or 3 nonzero coordinates.
inline std::vector<Offset3> neighbour_offsets(int connectivity) {
    const int most = connectivity == 6 ? 1 : connectivity == 18 ? 2 : 3;
    std::vector<Offset3> out;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
                if (nonzero != 0 && nonzero <= most) out.push_back({dx, dy, dz});
            }
    return out;
}

/// The flood fill over w × h × d voxels (x fastest, then y, then z): voxel p is background when
/// @p is_background(p), and joins its neighbour q when @p joins(p, q).
template <class IsBackground, class Joins>
std::vector<std::uint32_t> volume_bfs(std::int64_t w, std::int64_t h, std::int64_t d, int connectivity,
                                      IsBackground&& is_background, Joins&& joins, std::uint32_t* count = nullptr) {
    const std::vector<Offset3> offs = neighbour_offsets(connectivity);
    const std::int64_t voxels = w * h * d;
    std::vector<std::uint32_t> labels(std::size_t(voxels), 0);
    std::uint32_t n = 0;
    std::deque<std::int64_t> queue;
    auto index = [&](std::int64_t x, std::int64_t y, std::int64_t z) { return (z * h + y) * w + x; };
    for (std::int64_t start = 0; start < voxels; ++start) {
        if (labels[std::size_t(start)] != 0) continue;
        if (is_background(start)) continue;
        labels[std::size_t(start)] = ++n;
        queue.push_back(start);
        while (!queue.empty()) {
            const std::int64_t p = queue.front();
            queue.pop_front();
            const std::int64_t x = p % w, y = (p / w) % h, z = p / (w * h);
            for (const Offset3& o : offs) {
                const std::int64_t nx = x + o.dx, ny = y + o.dy, nz = z + o.dz;
                if (nx < 0 || ny < 0 || nz < 0 || nx >= w || ny >= h || nz >= d) continue;
                const std::int64_t q = index(nx, ny, nz);
                if (labels[std::size_t(q)] != 0 || is_background(q) || !joins(p, q)) continue;
                labels[std::size_t(q)] = n;
                queue.push_back(q);
            }
        }
    }
    if (count) *count = n;
    return labels;
}

/// @p values: one key per voxel (x fastest, then y, then z); @p background: the key labelled 0.
inline std::vector<std::uint32_t> volume_flood_fill(const std::vector<std::uint64_t>& values, std::int64_t w,
                                                    std::int64_t h, std::int64_t d, int connectivity,
                                                    std::optional<std::uint64_t> background,
                                                    std::uint32_t* count = nullptr) {
    return volume_bfs(
        w, h, d, connectivity, [&](std::int64_t p) { return background && values[std::size_t(p)] == *background; },
        [&](std::int64_t p, std::int64_t q) { return values[std::size_t(p)] == values[std::size_t(q)]; }, count);
}

}  // namespace cclabel::test
