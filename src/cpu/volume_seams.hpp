#pragma once
// What the two scans of the CPU volume labeller (runs in label3d_cpu.cpp, voxels in
// volume_voxels.hpp) share once their slabs are scanned: the forests of every slab at once, and the
// settling of the seams. Each slab numbers its provisional ids base + kFirst, base + kFirst + 1, ...
// (base: the slab's first voxel index) in raster order of their first voxels; parent[id - base] is
// an id's parent; row_begin[r] counts the ids opened before local row r; row_roots the roots among
// each row's ids.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace cclabel::cpu::vol {

/// The union-find of one slab during its scan: ids of this slab only, path halving.
struct SlabForest {
    std::uint32_t* parent;  // indexed by id - base
    std::uint32_t base;
    std::uint32_t find(std::uint32_t id) const {
        std::uint32_t p;
        while ((p = parent[id - base]) != id) {
            const std::uint32_t g = parent[p - base];
            parent[id - base] = g;
            id = g;
        }
        return id;
    }
    /// Unites the set of @p other with the set rooted at @p root, the larger root hung under the
    /// smaller (min-linking); returns the root of the union.
    std::uint32_t join(std::uint32_t root, std::uint32_t other) const {
        if (parent[other - base] == root) return root;  // joined already: most touches
        const std::uint32_t o = find(other);
        if (o == root) return root;
        if (o < root) {
            parent[root - base] = o;
            return o;
        }
        parent[o - base] = root;
        return root;
    }
};

/// After a slab's scan: the roots among the ids of each of its @p rows rows (row_roots); none
/// when the slab is the volume's only one and need not count them (Slab::count_roots).
template <typename Slab>
void count_row_roots(Slab& s, std::int64_t rows) {
    if (!s.count_roots) return s.row_roots.clear();
    s.row_roots.assign(std::size_t(rows), 0);
    for (std::int64_t lr = 0; lr < rows; ++lr) {
        std::uint32_t roots = 0;
        for (std::uint32_t i = s.row_begin[std::size_t(lr)] + Slab::kFirst; i < s.row_begin[std::size_t(lr) + 1] + Slab::kFirst; ++i)
            roots += s.parent[i] == s.base + i;
        s.row_roots[std::size_t(lr)] = roots;
    }
}

/// The forests of every slab at once, for the seams: read-only finds across slabs.
template <typename Slab>
struct Forests {
    std::vector<Slab>& slabs;
    Slab& slab_of(std::uint32_t id) const {
        auto it = std::upper_bound(slabs.begin(), slabs.end(), id,
                                   [](std::uint32_t v, const Slab& s) { return v < s.base + Slab::kFirst; });
        return *(it - 1);
    }
    std::uint32_t& parent(std::uint32_t id) const {
        Slab& s = slab_of(id);
        return s.parent[id - s.base];
    }
    std::uint32_t find_readonly(std::uint32_t id) const {
        for (std::uint32_t p; (p = parent(id)) != id;) id = p;
        return id;
    }
    /// The local row of id @p id in its slab.
    std::size_t row_of(const Slab& s, std::uint32_t id) const {
        const auto it = std::upper_bound(s.row_begin.begin(), s.row_begin.end(), id - s.base - Slab::kFirst);
        return std::size_t(it - s.row_begin.begin()) - 1;
    }
};

/// The final roots that ids of later slabs point at, and their numbers.
struct ExternalRoots {
    std::vector<std::uint32_t> root, number;
    std::uint32_t number_of(std::uint32_t id) const {
        return number[std::size_t(std::lower_bound(root.begin(), root.end(), id) - root.begin())];
    }
};

/// After the seams hung the roots @p hung under others: takes each off its row's count, points it
/// straight at its final root, gives each slab its first number (a prefix over the counts) and
/// numbers the final roots that later slabs point at (@p ext). Returns N.
template <typename Slab>
std::uint32_t settle_seams(const Forests<Slab>& forests, const std::vector<std::uint32_t>& hung, ExternalRoots& ext) {
    for (std::uint32_t c : hung) {
        Slab& s = forests.slab_of(c);
        --s.row_roots[forests.row_of(s, c)];
    }
    for (std::uint32_t c : hung) {
        const std::uint32_t root = forests.find_readonly(c);
        forests.parent(c) = root;
        ext.root.push_back(root);
    }
    std::sort(ext.root.begin(), ext.root.end());
    ext.root.erase(std::unique(ext.root.begin(), ext.root.end()), ext.root.end());

    std::uint32_t next = 0;
    for (Slab& s : forests.slabs) {
        s.first_label = next;
        for (std::uint32_t c : s.row_roots) next += c;
    }
    // A root's number: its slab's first number, the roots of the slab's rows before its row, and
    // the roots of its own row up to it (roots are sorted, so each slab's rows are walked once).
    ext.number.reserve(ext.root.size());
    const Slab* slab = nullptr;
    std::size_t row = 0;
    std::uint32_t before_row = 0;
    for (std::uint32_t root : ext.root) {
        const Slab& s = forests.slab_of(root);
        if (&s != slab) {
            slab = &s;
            row = 0;
            before_row = s.first_label;
        }
        for (const std::size_t rr = forests.row_of(s, root); row < rr; ++row) before_row += s.row_roots[row];
        std::uint32_t in_row = 0;
        for (std::uint32_t i = s.row_begin[row] + Slab::kFirst; i <= root - s.base; ++i)
            in_row += s.parent[i] == s.base + i;
        ext.number.push_back(before_row + in_row);
    }
    return next;
}

}  // namespace cclabel::cpu::vol
