// The region adjacency graph: one pass over the label image that visits each unordered neighbour
// pair once (E, and with 8-connectivity SE and SW; their mirror images are the same pairs), and a
// hash map from the packed pair (a << 32 | b) to its count. Most pixels sit inside a region, so the
// pass mostly compares equal labels and skips; the map only sees boundary pairs. The sorted edge
// list is built from the map at the end.
#include "core/adjacency_backends.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace cclabel::detail {

std::vector<AdjacencyEdge> adjacency_cpu(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                         std::int64_t stride, int connectivity, bool include_background) {
    std::unordered_map<std::uint64_t, std::uint64_t> counts;
    auto touch = [&](std::uint32_t p, std::uint32_t q) {
        if (p == q || (!include_background && (p == 0 || q == 0))) return;
        if (p > q) std::swap(p, q);
        ++counts[(std::uint64_t(p) << 32) | q];
    };
    for (std::int64_t y = 0; y < height; ++y) {
        const std::uint32_t* row = labels + y * stride;
        const std::uint32_t* below = y + 1 < height ? row + stride : nullptr;
        for (std::int64_t x = 0; x < width; ++x) {
            const std::uint32_t p = row[x];
            if (x + 1 < width) touch(p, row[x + 1]);
            if (!below) continue;
            touch(p, below[x]);
            if (connectivity == 8) {
                if (x + 1 < width) touch(p, below[x + 1]);
                if (x > 0) touch(p, below[x - 1]);
            }
        }
    }
    std::vector<AdjacencyEdge> edges;
    edges.reserve(counts.size());
    for (const auto& [key, n] : counts) edges.push_back({std::uint32_t(key >> 32), std::uint32_t(key), n});
    std::sort(edges.begin(), edges.end(),
              [](const AdjacencyEdge& l, const AdjacencyEdge& r) { return l.a != r.a ? l.a < r.a : l.b < r.b; });
    return edges;
}

}  // namespace cclabel::detail
