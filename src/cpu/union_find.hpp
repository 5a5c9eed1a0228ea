#pragma once
// Sequential union-find over run indices with min-linking and path halving. Each band of the CPU
// labeller owns one of these over its own runs; the seam merge then works on the whole table.
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

/// Joins the sets of @p a and @p b; the larger root is hung under the smaller.
inline void unite(std::uint32_t* parent, std::uint32_t a, std::uint32_t b) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

/// Unites every run of the current row with the same-keyed runs of the previous row that touch it.
/// Runs [pb, pe) are the previous row and [cb, ce) the current one; both in increasing x. Indices are
/// shifted by @p prev_base / @p cur_base into @p parent's index space.
template <int Conn>
void merge_rows(std::uint32_t* parent, const std::uint32_t* ps, const std::uint32_t* pe_x, const std::uint32_t* pk,
                std::uint32_t pn, std::uint32_t prev_base, const std::uint32_t* cs, const std::uint32_t* ce_x,
                const std::uint32_t* ck, std::uint32_t cn, std::uint32_t cur_base) {
    // With 8-connectivity a run touches the runs above it that reach one pixel past either end.
    constexpr std::int64_t kReach = Conn == 8 ? 1 : 0;
    std::uint32_t j = 0;
    for (std::uint32_t i = 0; i < cn; ++i) {
        const std::int64_t lo = std::int64_t(cs[i]) - kReach;
        const std::int64_t hi = std::int64_t(ce_x[i]) + kReach;
        while (j < pn && std::int64_t(pe_x[j]) < lo) ++j;
        for (std::uint32_t k = j; k < pn && std::int64_t(ps[k]) <= hi; ++k)
            if (pk[k] == ck[i]) unite(parent, prev_base + k, cur_base + i);
    }
}

}  // namespace cclabel::cpu
