// Step 3 of the tile API: a union-find over (tile, local label) joined at the seams, roots keeping
// the smallest global index; global labels are the ranks of the roots' indices.
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
    std::vector<std::uint64_t> parent(slots), index(slots);
    for (std::size_t t = 0; t < tiles; ++t)
        for (std::size_t i = 0; i < first_index[t].size(); ++i) {
            parent[start[t] + i] = start[t] + i;
            index[start[t] + i] = first_index[t][i];
        }
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
            if (index[rb] < index[ra]) std::swap(ra, rb);
            parent[rb] = ra;  // the root keeps the smaller global index
        }
    }

    // Each tile's roots are ascending in global index (a subset of its first_index), so the global
    // raster order of all roots is a k-way merge of the tiles' lists: no sort of every label.
    std::vector<std::uint64_t> number(slots, 0);
    std::vector<std::uint64_t> cursor(tiles);
    using Head = std::pair<std::uint64_t, std::size_t>;  // (global index, tile)
    std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heap;
    auto advance = [&](std::size_t t) {
        std::uint64_t& c = cursor[t];
        while (c < first_index[t].size() && parent[start[t] + c] != start[t] + c) ++c;
        if (c < first_index[t].size()) heap.push({first_index[t][c], t});
    };
    for (std::size_t t = 0; t < tiles; ++t) advance(t);
    Resolution res;
    std::uint64_t last = 0;
    std::size_t last_tile = 0;
    while (!heap.empty()) {
        const auto [idx, t] = heap.top();
        heap.pop();
        if (res.count > 0 && idx == last)
            throw Error("resolve: tiles " + std::to_string(last_tile) + " and " + std::to_string(t) +
                        " both claim global pixel " + std::to_string(idx) + " (do the tiles overlap?)");
        number[start[t] + cursor[t]] = ++res.count;
        last = idx;
        last_tile = t;
        ++cursor[t];
        advance(t);
    }

    res.maps.resize(tiles);
    for (std::size_t t = 0; t < tiles; ++t) {
        auto& m = res.maps[t];
        m.resize(first_index[t].size() + 1);
        m[0] = 0;
        for (std::size_t i = 0; i < first_index[t].size(); ++i) m[i + 1] = number[find(start[t] + i)];
    }
    return res;
}

}  // namespace cclabel
