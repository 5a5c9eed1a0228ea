#pragma once
// What the two pixel labellers (label_cpu.cpp joins equal keys, tolerance_cpu.cpp close values)
// share between scanning their bands and numbering them. Each band was scanned alone into the label
// image, which doubles as the union-find forest: out[l - 1] is label l's parent, a fresh label is
// its pixel's index + 1, unions hang the larger root under the smaller, so every set is rooted at
// its first pixel in raster order; the scan counted each row's roots. Then, on one thread:
//   1. merge_seam unites the labels that touch across a band seam where the labeller's predicate
//      says the two pixels join. Its finds are read-only: halving paths here could point pixels of
//      other bands at non-roots, which the numbering does not expect.
//   2. settle_seams takes every root it hung off its row's count, points it straight at its final
//      root (so the only parent outside a band a pixel can have is a root), gives each band its first
//      number by a prefix over the counts, and numbers those outside roots (SeamRoots).
// Each band then numbers its own pixels in raster order: a root takes the next number, any other
// pixel the number its parent's pixel already holds, or SeamRoots::number_of for a parent in an
// earlier band.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace cclabel::cpu {

/// The union-find over labels stored in the label image: the parent of label l is out[l - 1].
struct Forest {
    std::uint32_t* out;

    /// Root of @p l, halving the path on the way.
    std::uint32_t find(std::uint32_t l) const {
        while (out[l - 1] != l) {
            const std::uint32_t g = out[out[l - 1] - 1];
            out[l - 1] = g;
            l = g;
        }
        return l;
    }
    /// Root of @p l without writing.
    std::uint32_t find_readonly(std::uint32_t l) const {
        while (out[l - 1] != l) l = out[l - 1];
        return l;
    }
    /// Hangs the larger of two distinct roots under the smaller; returns the hung one.
    std::uint32_t link(std::uint32_t a, std::uint32_t b) const {
        if (a > b) std::swap(a, b);
        out[b - 1] = a;
        return b;
    }
    /// Joins the sets of @p a and @p b; returns the root hung under the other, or 0 when they were
    /// one set already.
    std::uint32_t unite(std::uint32_t a, std::uint32_t b) const {
        a = find(a);
        b = find(b);
        return a == b ? 0 : link(a, b);
    }
};

/// A band of rows [y0, y1) as the seam step sees it.
struct BandRoots {
    std::int64_t y0 = 0, y1 = 0;
    std::uint64_t begin = 0;  ///< index of the band's first pixel
    std::uint32_t first_label = 0;  ///< numbers of this band's roots start after this
    /// Roots per row, kept by the scan (a fresh label adds one to its row, a union takes one from
    /// the hung root's row) and the seams: no pass over the pixels is needed to count them.
    std::vector<std::uint32_t> row_roots;
};

/// @p n bands of a @p height × @p width picture, as even as whole rows allow.
template <typename Band>
std::vector<Band> split_bands(int n, std::int64_t height, std::uint64_t width) {
    std::vector<Band> bands(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        Band& b = bands[std::size_t(i)];
        b.y0 = height * i / n;
        b.y1 = height * (i + 1) / n;
        b.begin = std::uint64_t(b.y0) * width;
    }
    return bands;
}

/// The roots that pixels of later bands point at after the seams, sorted, and their numbers.
struct SeamRoots {
    std::vector<std::uint32_t> root, number;

    bool empty() const { return root.empty(); }
    std::uint32_t number_of(std::uint32_t r) const {
        return number[std::size_t(std::lower_bound(root.begin(), root.end(), r) - root.begin())];
    }
};

/// Unites the labels across the seam above the band starting at row @p y (a picture @p w wide)
/// wherever join(x, q) says pixel x of row y joins pixel q of row y - 1; appends each root hung to
/// @p hung.
template <int Conn, typename Join>
void merge_seam(const Forest& forest, std::uint32_t w, std::int64_t y, Join&& join, std::vector<std::uint32_t>& hung) {
    const std::uint32_t* la = forest.out + std::size_t(y - 1) * w;
    const std::uint32_t* lb = forest.out + std::size_t(y) * w;
    std::uint32_t last_a = 0, last_b = 0;  // the pair just united: runs along a seam repeat it
    for (std::uint32_t x = 0; x < w; ++x) {
        if (lb[x] == 0) continue;
        const std::uint32_t lo = Conn == 8 && x > 0 ? x - 1 : x;
        const std::uint32_t hi = Conn == 8 && x + 1 < w ? x + 1 : x;
        for (std::uint32_t q = lo; q <= hi; ++q) {
            if (la[q] == 0 || !join(x, q)) continue;
            if (la[q] == last_a && lb[x] == last_b) continue;
            last_a = la[q];
            last_b = lb[x];
            const std::uint32_t a = forest.find_readonly(la[q]), c = forest.find_readonly(lb[x]);
            if (a != c) hung.push_back(forest.link(a, c));
        }
    }
}

/// Step 2 above, after merge_seam has run on every seam: returns the picture's region count and
/// fills @p ext.
template <typename Band>
std::uint32_t settle_seams(std::vector<Band>& bands, const Forest& forest, std::uint64_t w,
                           const std::vector<std::uint32_t>& hung, SeamRoots& ext) {
    auto band_of = [&](std::uint32_t label) -> Band& {
        auto it = std::upper_bound(bands.begin(), bands.end(), std::uint64_t(label),
                                   [](std::uint64_t v, const Band& b) { return v <= b.begin; });
        return *(it - 1);
    };
    for (std::uint32_t c : hung) {
        Band& b = band_of(c);
        --b.row_roots[std::size_t((c - 1) / w - std::uint64_t(b.y0))];
    }
    for (std::uint32_t c : hung) {
        const std::uint32_t root = forest.find_readonly(c);
        forest.out[c - 1] = root;
        ext.root.push_back(root);
    }
    std::sort(ext.root.begin(), ext.root.end());
    ext.root.erase(std::unique(ext.root.begin(), ext.root.end()), ext.root.end());

    std::uint32_t next = 0;
    for (Band& b : bands) {
        b.first_label = next;
        for (std::uint32_t c : b.row_roots) next += c;
    }

    // A root's number: its band's first label, the roots of the rows above it in the band, and
    // the roots of its own row up to it (targets are sorted, so a row is read once).
    ext.number.reserve(ext.root.size());
    const Band* band = nullptr;
    std::uint64_t row = 0, pos = 0;
    std::uint32_t before_row = 0, in_row = 0;  // roots of the band before `row`; of `row` before `pos`
    for (std::uint32_t root : ext.root) {
        const Band& b = band_of(root);
        if (&b != band) {
            band = &b;
            row = std::uint64_t(b.y0);
            before_row = b.first_label;
            pos = row * w;
            in_row = 0;
        }
        const std::uint64_t root_row = (root - 1) / w;
        if (root_row != row) {
            for (; row < root_row; ++row) before_row += b.row_roots[std::size_t(row - std::uint64_t(b.y0))];
            pos = row * w;
            in_row = 0;
        }
        for (; pos < root; ++pos) in_row += forest.out[pos] == std::uint32_t(pos + 1);  // up to the root itself
        ext.number.push_back(before_row + in_row);
    }
    return next;
}

}  // namespace cclabel::cpu
