// Step 3 of the tile API: a union-find over (tile, local label) joined at the seams, roots keeping
// the smallest global index; global labels are the ranks of the roots' indices.
#include <algorithm>
#include <queue>
#include <string>
#include <utility>

#include "cclabel/error.hpp"
#include "cclabel/tiles.hpp"

namespace cclabel {

Resolution resolve_tiles(const std::vector<std::vector<std::uint64_t>>& first_index, const std::vector<Seam>& seams) {
    const std::size_t tiles = first_index.size();
    // Slot of (tile t, label l) = start[t] + l − 1.
    std::vector<std::uint64_t> start(tiles + 1, 0);
    for (std::size_t t = 0; t < tiles; ++t) {
        const auto& f = first_index[t];
        for (std::size_t i = 1; i < f.size(); ++i)
            if (f[i] <= f[i - 1])
                throw Error("resolve: tile " + std::to_string(t) + ": first_index is not strictly ascending at label " +
                            std::to_string(i + 1));
        start[t + 1] = start[t] + f.size();
    }
    const std::uint64_t slots = start[tiles];
    // Only labels joined at a seam ever leave their own slot, so the slot's tile is looked up (a
    // binary search over the tiles) only for them: no per-slot copy of the indices.
    auto tile_of = [&](std::uint64_t slot) {
        return std::size_t(std::upper_bound(start.begin(), start.end(), slot) - start.begin() - 1);
    };
    auto index_of = [&](std::uint64_t slot) {
        const std::size_t t = tile_of(slot);
        return first_index[t][slot - start[t]];
    };
    std::vector<std::uint64_t> parent(slots);
    for (std::uint64_t i = 0; i < slots; ++i) parent[i] = i;
    auto find = [&](std::uint64_t s) {
        while (parent[s] != s) {
            parent[s] = parent[parent[s]];  // path halving
            s = parent[s];
        }
        return s;
    };

    for (std::size_t k = 0; k < seams.size(); ++k) {
        const Seam& s = seams[k];
        if (s.tile_a >= tiles || s.tile_b >= tiles)
            throw Error("resolve: seam " + std::to_string(k) + " names tile " +
                        std::to_string(s.tile_a >= tiles ? s.tile_a : s.tile_b) + " of " + std::to_string(tiles));
        if (s.pairs.size() % 2 != 0)
            throw Error("resolve: seam " + std::to_string(k) + " has an odd number of pair entries (" +
                        std::to_string(s.pairs.size()) + ")");
        const std::uint64_t na = first_index[s.tile_a].size(), nb = first_index[s.tile_b].size();
        for (std::size_t i = 0; i < s.pairs.size(); i += 2) {
            const std::uint32_t la = s.pairs[i], lb = s.pairs[i + 1];
            if (la == 0 || la > na || lb == 0 || lb > nb)
                throw Error("resolve: seam " + std::to_string(k) + " pairs labels " + std::to_string(la) + " and " +
                            std::to_string(lb) + ", but tiles " + std::to_string(s.tile_a) + " and " +
                            std::to_string(s.tile_b) + " have " + std::to_string(na) + " and " + std::to_string(nb) +
                            " labels");
            std::uint64_t ra = find(start[s.tile_a] + la - 1), rb = find(start[s.tile_b] + lb - 1);
            if (ra == rb) continue;
            if (index_of(rb) < index_of(ra)) std::swap(ra, rb);
            parent[rb] = ra;  // the root keeps the smaller global index
        }
    }

    Resolution res;
    res.maps.resize(tiles);
    for (std::size_t t = 0; t < tiles; ++t) res.maps[t].assign(first_index[t].size() + 1, 0);

    // Each tile's roots are ascending in global index (a subset of its first_index), so the global
    // raster order of all roots is a k-way merge of the tiles' lists: no sort of every label. The
    // tile with the smallest head gives all its roots below the next tile's head at once: tiles of a
    // grid interleave by image rows, so the heap works once per tile and row, not once per root.
    // A root's number goes straight into its own tile's map.
    std::vector<std::uint64_t> cursor(tiles);
    using Head = std::pair<std::uint64_t, std::size_t>;  // (global index, tile)
    std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heap;
    auto skip_non_roots = [&](std::size_t t) {
        std::uint64_t& c = cursor[t];
        while (c < first_index[t].size() && parent[start[t] + c] != start[t] + c) ++c;
        return c < first_index[t].size();
    };
    for (std::size_t t = 0; t < tiles; ++t)
        if (skip_non_roots(t)) heap.push({first_index[t][cursor[t]], t});
    std::uint64_t last = 0;
    std::size_t last_tile = 0;
    while (!heap.empty()) {
        auto [idx, t] = heap.top();
        heap.pop();
        const std::uint64_t bound = heap.empty() ? ~std::uint64_t(0) : heap.top().first;
        bool more = true;
        do {
            if (res.count > 0 && idx == last)
                throw Error("resolve: tiles " + std::to_string(last_tile) + " and " + std::to_string(t) +
                            " both claim global pixel " + std::to_string(idx) + " (do the tiles overlap?)");
            res.maps[t][cursor[t] + 1] = ++res.count;
            last = idx;
            last_tile = t;
            ++cursor[t];
            more = skip_non_roots(t);
            if (more) idx = first_index[t][cursor[t]];
        } while (more && idx < bound);
        if (more) heap.push({idx, t});
    }

    // Labels joined under another tile's root (or an earlier one of their own) take its number.
    for (std::size_t t = 0; t < tiles; ++t)
        for (std::uint64_t i = 0; i < first_index[t].size(); ++i) {
            const std::uint64_t slot = start[t] + i;
            if (parent[slot] == slot) continue;
            const std::uint64_t r = find(slot);
            const std::size_t rt = tile_of(r);
            res.maps[t][i + 1] = res.maps[rt][r - start[rt] + 1];
        }
    return res;
}

}  // namespace cclabel
