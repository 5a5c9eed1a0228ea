#pragma once
// The seam between two z-slabs of a volume labelled apart: which regions of the slice before it
// (the last of one slab) continue into the slice after it (the first of the next). A voxel (x, y)
// after the seam meets the voxels before it at (x, y) under 6-connectivity, also at (x ± 1, y) and
// (x, y ± 1) under 18, and the whole 3 × 3 square under 26. The CLI's slabs
// (src/cli/volume_slabs.cpp) join format keys, with their tolerance; cclabel.label_slabs
// (python/src/slab_seam.cpp) joins equal value bits.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace cclabel::detail {

/// Pairs (label before, label after), sorted and once each, flattened as resolve_tiles' Seam::pairs
/// takes them, of the foreground voxels that are neighbours across the seam and for which
/// @p joins(j, i) holds (j: a voxel of the slice before, i: one after, both row-major indices).
/// @p before and @p after hold @p width × @p height labels each (0: background).
template <typename Joins>
std::vector<std::uint32_t> slab_seam_pairs(const std::uint32_t* before, const std::uint32_t* after, std::int64_t width,
                                           std::int64_t height, int connectivity, Joins&& joins) {
    const std::int64_t reach = connectivity == 6 ? 0 : 1;
    std::vector<std::uint64_t> packed;
    for (std::int64_t y = 0; y < height; ++y) {
        const std::int64_t y0 = std::max<std::int64_t>(y - reach, 0), y1 = std::min(y + reach, height - 1);
        for (std::int64_t x = 0; x < width; ++x) {
            const std::int64_t i = y * width + x;
            const std::uint32_t lb = after[i];
            if (lb == 0) continue;
            const std::int64_t x0 = std::max<std::int64_t>(x - reach, 0), x1 = std::min(x + reach, width - 1);
            for (std::int64_t yy = y0; yy <= y1; ++yy)
                for (std::int64_t xx = x0; xx <= x1; ++xx) {
                    if (connectivity == 18 && yy != y && xx != x) continue;  // 18: the square without corners
                    const std::int64_t j = yy * width + xx;
                    const std::uint32_t la = before[j];
                    if (la == 0 || !joins(j, i)) continue;
                    const std::uint64_t pair = std::uint64_t(la) << 32 | lb;
                    if (packed.empty() || packed.back() != pair) packed.push_back(pair);  // runs repeat a pair
                }
        }
    }
    std::sort(packed.begin(), packed.end());
    packed.erase(std::unique(packed.begin(), packed.end()), packed.end());
    std::vector<std::uint32_t> pairs(2 * packed.size());
    for (std::size_t k = 0; k < packed.size(); ++k) {
        pairs[2 * k] = std::uint32_t(packed[k] >> 32);
        pairs[2 * k + 1] = std::uint32_t(packed[k]);
    }
    return pairs;
}

}  // namespace cclabel::detail
