// Step 3 of the tile API: a union-find over (tile, local label) joined at the seams, roots keeping
// the smallest global index; global labels are the ranks of the roots' indices.
//
// Only labels named at a seam can stop being roots, so the union-find holds only those (a few
// thousand on an 800 dpi sheet of a million labels): no per-label parent array (a per-label table
// finds them, freed before the maps are made). The ranks are a k-way merge of the tiles'
// ascending root lists; above kBandLabels labels it runs in bands of the
// global index range on several threads, each band numbered from the count of roots below it
// (found by binary searches, not by a pass over the labels). The streamed GPU pipeline
// (src/cuda/tiles_cuda.cu) waits for this between its uploads and its downloads.
#include <algorithm>
#include <queue>
#include <string>
#include <utility>

#include "core/cores.hpp"
#include "cclabel/error.hpp"
#include "cclabel/tiles.hpp"
#include "core/parallel_for.hpp"

namespace cclabel {
namespace {

/// Below this many labels in all, one band on the calling thread.
constexpr std::uint64_t kBandLabels = std::uint64_t(1) << 18;

int resolve_threads(int asked) {
    const int cores = detail::usable_cores();
    return asked > 0 ? std::min(asked, cores) : cores;
}

}  // namespace

Resolution resolve_tiles(const std::vector<std::vector<std::uint64_t>>& first_index, const std::vector<Seam>& seams,
                         int threads_asked) {
    if (threads_asked < 0) throw Error("resolve: thread count must not be negative (got " + std::to_string(threads_asked) + ")");
    const std::size_t tiles = first_index.size();
    // Slot of (tile t, label l) = start[t] + l − 1.
    std::vector<std::uint64_t> start(tiles + 1, 0);
    for (std::size_t t = 0; t < tiles; ++t) start[t + 1] = start[t] + first_index[t].size();
    const std::uint64_t slots = start[tiles];
    const int threads = slots >= kBandLabels ? resolve_threads(threads_asked) : 1;

    // Ascending within each tile (in parallel; the first bad tile is reported, as a serial check would).
    {
        std::vector<std::uint64_t> bad(tiles, 0);  // 1 + the first label that is not above its predecessor
        detail::parallel_for(tiles, threads, [&](std::uint64_t t) {
            const auto& f = first_index[t];
            for (std::size_t i = 1; i < f.size(); ++i)
                if (f[i] <= f[i - 1]) {
                    bad[t] = i + 1;
                    return;
                }
        });
        for (std::size_t t = 0; t < tiles; ++t)
            if (bad[t])
                throw Error("resolve: tile " + std::to_string(t) + ": first_index is not strictly ascending at label " +
                            std::to_string(bad[t]));
    }
    auto tile_of = [&](std::uint64_t slot) {
        return std::size_t(std::upper_bound(start.begin(), start.end(), slot) - start.begin() - 1);
    };

    // The seams checked in order, and the slots they name marked: the union-find's nodes, numbered
    // in slot order with their global indices by one pass over the tiles, so that a pair costs two
    // lookups in a slot-to-node table, not binary searches in the nodes (millions of pairs when a
    // volume's slabs are single slices). The table (8 bytes a label) is freed before the maps
    // (8 bytes a label) are made: the peak stays what the maps take.
    constexpr std::uint64_t kUnnamed = ~std::uint64_t(0);
    std::vector<std::uint64_t> node_of(slots, kUnnamed);
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
            node_of[start[s.tile_a] + la - 1] = 0;
            node_of[start[s.tile_b] + lb - 1] = 0;
        }
    }
    std::vector<std::uint64_t> named, named_index;  // each node's slot and global index
    for (std::size_t t = 0; t < tiles; ++t)
        for (std::uint64_t l = 0; l < first_index[t].size(); ++l)
            if (node_of[start[t] + l] != kUnnamed) {
                node_of[start[t] + l] = named.size();
                named.push_back(start[t] + l);
                named_index.push_back(first_index[t][l]);
            }
    std::vector<std::size_t> parent(named.size());
    for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
    auto find = [&](std::size_t s) {
        while (parent[s] != s) {
            parent[s] = parent[parent[s]];  // path halving
            s = parent[s];
        }
        return s;
    };
    // Nodes are in slot order, and slots of one tile in index order, but not slots of different
    // tiles: the root keeps the smaller global index, as before.
    for (const Seam& s : seams)
        for (std::size_t i = 0; i < s.pairs.size(); i += 2) {
            std::size_t ra = find(node_of[start[s.tile_a] + s.pairs[i] - 1]);
            std::size_t rb = find(node_of[start[s.tile_b] + s.pairs[i + 1] - 1]);
            if (ra == rb) continue;
            if (named_index[rb] < named_index[ra]) std::swap(ra, rb);
            parent[rb] = ra;
        }
    std::vector<std::uint64_t>().swap(node_of);
    std::vector<std::uint64_t>().swap(named_index);
    // The slots that are no longer roots (ascending), each pointing straight at its root's slot.
    std::vector<std::uint64_t> lowered, lowered_root;
    for (std::size_t i = 0; i < named.size(); ++i)
        if (find(i) != i) {
            lowered.push_back(named[i]);
            lowered_root.push_back(named[find(i)]);
        }

    Resolution res;
    res.maps.resize(tiles);
    detail::parallel_for(tiles, threads, [&](std::uint64_t t) { res.maps[t].assign(first_index[t].size() + 1, 0); });

    // Bands of the global index range: [split[b], split[b + 1]). A band's roots are numbered from
    // the count of roots in the bands below: per tile, a binary search for the band's ends in its
    // first_index, less the lowered slots in that stretch (another binary search).
    std::uint64_t top = 0;
    for (const auto& f : first_index)
        if (!f.empty()) top = std::max(top, f.back());
    // Four bands a thread, but at least 2^16 labels a band, and the per-band tables (one position a
    // tile and band) at most 2^24 entries: many small tiles get fewer bands, not gigabytes of them.
    std::uint64_t bands = threads > 1 ? std::uint64_t(threads) * 4 : 1;
    bands = std::min({bands, slots >> 16, (std::uint64_t(1) << 24) / std::max<std::uint64_t>(tiles, 1)});
    bands = std::max<std::uint64_t>(bands, 1);
    std::vector<std::uint64_t> split(bands + 1);
    const std::uint64_t width = top / bands + 1;  // bands · width > top
    for (std::uint64_t b = 0; b <= bands; ++b) split[b] = b == bands ? ~std::uint64_t(0) : b * width;
    // at[b · tiles + t] = first position of tile t's first_index at or above split[b].
    std::vector<std::uint64_t> at((bands + 1) * tiles);
    for (std::uint64_t b = 0; b <= bands; ++b)
        for (std::size_t t = 0; t < tiles; ++t) {
            const auto& f = first_index[t];
            at[b * tiles + t] = b == bands ? f.size()
                                           : std::uint64_t(std::lower_bound(f.begin(), f.end(), split[b]) - f.begin());
        }
    auto lowered_at = [&](std::uint64_t slot) {
        return std::uint64_t(std::lower_bound(lowered.begin(), lowered.end(), slot) - lowered.begin());
    };
    std::vector<std::uint64_t> base(bands + 1, 0);
    for (std::uint64_t b = 0; b < bands; ++b) {
        std::uint64_t roots = 0;
        for (std::size_t t = 0; t < tiles; ++t) {
            const std::uint64_t lo = at[b * tiles + t], hi = at[(b + 1) * tiles + t];
            roots += (hi - lo) - (lowered_at(start[t] + hi) - lowered_at(start[t] + lo));
        }
        base[b + 1] = base[b] + roots;
    }
    res.count = base[bands];

    // Each band: the tiles' roots are ascending in global index (a subset of first_index), so the
    // band's raster order of roots is a k-way merge of the tiles' stretches: no sort of every label.
    // The tile with the smallest head gives all its roots below the next tile's head at once: tiles
    // of a grid interleave by image rows, so the heap works once per tile and row, not once per
    // root. A root's number goes straight into its own tile's map.
    // Two tiles claiming one global pixel: each band records its first (lowest) such pixel and stops;
    // the lowest band's is reported after all have run, so the message never depends on timing.
    struct Clash {
        bool found = false;
        std::uint64_t idx = 0;
        std::size_t a = 0, b = 0;
    };
    std::vector<Clash> clash(bands);
    detail::parallel_for(bands, threads, [&](std::uint64_t b) {
        std::vector<std::uint64_t> cursor(tiles), end(tiles), skip(tiles);  // skip: next lowered slot's position
        using Head = std::pair<std::uint64_t, std::size_t>;                  // (global index, tile)
        std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heap;
        auto skip_non_roots = [&](std::size_t t) {
            std::uint64_t& c = cursor[t];
            while (c < end[t] && skip[t] < lowered.size() && lowered[skip[t]] == start[t] + c) {
                ++c;
                ++skip[t];
            }
            return c < end[t];
        };
        for (std::size_t t = 0; t < tiles; ++t) {
            cursor[t] = at[b * tiles + t];
            end[t] = at[(b + 1) * tiles + t];
            skip[t] = lowered_at(start[t] + cursor[t]);
            if (skip_non_roots(t)) heap.push({first_index[t][cursor[t]], t});
        }
        std::uint64_t number = base[b], last = 0;
        std::size_t last_tile = 0;
        while (!heap.empty()) {
            auto [idx, t] = heap.top();
            heap.pop();
            const std::uint64_t bound = heap.empty() ? ~std::uint64_t(0) : heap.top().first;
            bool more = true;
            do {
                if (number > base[b] && idx == last) {
                    clash[b] = Clash{true, idx, last_tile, t};
                    return;
                }
                res.maps[t][cursor[t] + 1] = ++number;
                last = idx;
                last_tile = t;
                ++cursor[t];
                more = skip_non_roots(t);
                if (more) idx = first_index[t][cursor[t]];
            } while (more && idx < bound);
            if (more) heap.push({idx, t});
        }
    });

    for (const Clash& c : clash)
        if (c.found)
            throw Error("resolve: tiles " + std::to_string(c.a) + " and " + std::to_string(c.b) + " both claim global pixel " +
                        std::to_string(c.idx) + " (do the tiles overlap?)");

    // Labels joined under another tile's root (or an earlier one of their own) take its number.
    for (std::size_t i = 0; i < lowered.size(); ++i) {
        const std::uint64_t s = lowered[i], r = lowered_root[i];
        const std::size_t st = tile_of(s), rt = tile_of(r);
        res.maps[st][s - start[st] + 1] = res.maps[rt][r - start[rt] + 1];
    }
    return res;
}

}  // namespace cclabel
