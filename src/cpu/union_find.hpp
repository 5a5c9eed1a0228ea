#pragma once
// Sequential union-find over provisional labels with min-linking and path halving. Provisional
// labels are handed out in raster order of the run that opened them, so hanging the larger root
// under the smaller leaves every region rooted at the label of its first pixel's run.
#include <cstdint>

namespace cclabel::cpu {

/// Root of @p i, halving the path on the way (every visited node skips to its grandparent).
inline std::uint32_t find_root(std::uint32_t* parent, std::uint32_t i) {
    while (parent[i] != i) {
        const std::uint32_t g = parent[parent[i]];
        parent[i] = g;
        i = g;
    }
    return i;
}

/// Joins the sets of @p a and @p b; the larger root is hung under the smaller. Returns the root.
inline std::uint32_t unite(std::uint32_t* parent, std::uint32_t a, std::uint32_t b) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a < b) {
        parent[b] = a;
        return a;
    }
    parent[a] = b;
    return b;
}

}  // namespace cclabel::cpu
