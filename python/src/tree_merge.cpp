// cclabel._cclabel._tree_merge: one merge of cclabel.dask's tree reduction in one call.
//
// cclabel.dask describes a group of chunks by its *summary*, one int64 array: [m, the m border
// runs as a (6, m) array, the closed ids]. A run's column is (side, line, lo, hi, key, id) (side 0
// top, 1 bottom, 2 left, 3 right; line: the side's y for top/bottom, x for left/right; [lo, hi) the
// stretch along the side; key: the pixels' equality key; id: the smallest first-pixel index of the
// region's parts joined so far); the closed ids are the regions that no longer reach the group's
// border. (One array, not a tuple of two: a merge reads up to 256 children, and each Python object
// it touches is a fixed cost, cold in cache between Dask tasks.) A merge joins a block of
// neighbouring groups into one (python/cclabel/dask.py, _merge). Done in NumPy it was some forty
// array calls a merge plus per-child Python; here it is one call, linear in the children's runs
// (sorts aside) and closed ids:
//   1. the runs that face an inner seam are laid along one axis, each seam its own stretch; the
//      runs on the side after a seam (top, left) are sorted, and every run on the side before it
//      (bottom, right) finds the ones it touches (one step further along the seam for
//      8-connectivity) by binary search; equal keys are equivalent;
//   2. one union-find over the block's ids, each component rooted at its smallest id;
//   3. the runs on the group's outer sides, renamed, sorted by (side, lo), and those that continue
//      one another (same side and key and id, lo == the previous hi) joined;
//   4. the ids left without a run on the new border are closed.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using Summary = nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// A 1-D NumPy array that takes over @p v.
template <typename T>
nb::ndarray<nb::numpy, T> owned_array(std::vector<T>&& v) {
    auto* owned = new std::vector<T>(std::move(v));
    nb::capsule owner(owned, [](void* q) noexcept { delete static_cast<std::vector<T>*>(q); });
    const std::size_t shape[1] = {owned->size()};
    return nb::ndarray<nb::numpy, T>(owned->data(), 1, shape, owner);
}

struct Run {
    std::int64_t side, line, lo, hi, key, id;
};

/// A child's closed ids, read in place (the children outlive the merge).
struct Span64 {
    const std::int64_t* data;
    std::size_t size;
};

struct Result {
    std::vector<std::int64_t> summary;  // [m, (6, m) runs row-major, closed ids]
    std::vector<std::uint64_t> renamed, to;
};

Result merge(const std::vector<Run>& runs, const std::vector<Span64>& closed, std::size_t n_closed, std::int64_t y0, std::int64_t x0,
             std::int64_t h, std::int64_t w, const std::vector<std::int64_t>& seams, int connectivity) {
    const std::size_t n = runs.size();
    const std::int64_t boundary[4] = {y0, y0 + h - 1, x0, x0 + w - 1};
    const std::int64_t origin[4] = {x0, x0, y0, y0};
    const std::int64_t S = std::max(h, w) + 2;
    const std::int64_t reach = connectivity == 8 ? 1 : 0;

    // The block's distinct ids, ascending: a run's node is its id's index.
    std::vector<std::int64_t> nodes(n);
    for (std::size_t i = 0; i < n; ++i) nodes[i] = runs[i].id;
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    std::vector<std::uint32_t> node(n);
    for (std::size_t i = 0; i < n; ++i)
        node[i] = std::uint32_t(std::lower_bound(nodes.begin(), nodes.end(), runs[i].id) - nodes.begin());
    std::vector<std::uint32_t> parent(nodes.size());
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&](std::uint32_t v) {
        while (parent[v] != v) v = parent[v] = parent[parent[v]];
        return v;
    };

    // 1. Seams: a = bottom/right runs (they face the seam after them), b = top/left runs.
    struct Span {
        std::int64_t lo, hi;
        std::uint32_t run;
    };
    std::vector<Span> a, b;
    std::vector<std::uint32_t> outer;
    for (std::size_t i = 0; i < n; ++i) {
        const Run& r = runs[i];
        if (r.line == boundary[r.side]) {
            outer.push_back(std::uint32_t(i));
            continue;
        }
        const std::int64_t odd = r.side & 1;
        const std::int64_t seam = 2 * (r.line + odd) + (r.side >> 1);
        const std::int64_t rank = std::lower_bound(seams.begin(), seams.end(), seam) - seams.begin();
        const std::int64_t base = rank * S - origin[r.side];
        (odd ? a : b).push_back(Span{base + r.lo, base + r.hi, std::uint32_t(i)});
    }
    std::sort(b.begin(), b.end(), [](const Span& p, const Span& q) { return p.lo < q.lo; });  // disjoint per seam
    for (const Span& s : a) {
        const std::int64_t lo = s.lo - reach, hi = s.hi + reach;
        auto it = std::upper_bound(b.begin(), b.end(), lo, [](std::int64_t v, const Span& q) { return v < q.hi; });
        for (; it != b.end() && it->lo < hi; ++it) {
            if (runs[it->run].key != runs[s.run].key) continue;
            // 2. Union, the smaller node (the smaller id) the root.
            std::uint32_t ra = find(node[s.run]), rb = find(node[it->run]);
            if (ra == rb) continue;
            if (ra < rb) std::swap(ra, rb);
            parent[ra] = rb;
        }
    }
    Result res;
    std::vector<std::uint32_t> root(nodes.size());
    for (std::uint32_t v = 0; v < nodes.size(); ++v) {
        root[v] = find(v);
        if (root[v] != v) {
            res.renamed.push_back(std::uint64_t(nodes[v]));
            res.to.push_back(std::uint64_t(nodes[root[v]]));
        }
    }

    // 3. The new border.
    std::sort(outer.begin(), outer.end(), [&](std::uint32_t p, std::uint32_t q) {
        return runs[p].side != runs[q].side ? runs[p].side < runs[q].side : runs[p].lo < runs[q].lo;
    });
    std::vector<Run> out;
    out.reserve(outer.size());
    std::vector<char> open(nodes.size(), 0);
    for (const std::uint32_t i : outer) {
        Run r = runs[i];
        const std::uint32_t rt = root[node[i]];
        r.id = nodes[rt];
        open[rt] = 1;
        if (!out.empty()) {
            Run& p = out.back();
            if (p.side == r.side && p.hi == r.lo && p.key == r.key && p.id == r.id) {
                p.hi = r.hi;
                continue;
            }
        }
        out.push_back(r);
    }
    const std::size_t m = out.size();
    std::vector<std::int64_t>& sum = res.summary;
    sum.reserve(1 + 6 * m + n_closed + nodes.size());
    sum.resize(1 + 6 * m);
    sum[0] = std::int64_t(m);
    std::int64_t* q = sum.data() + 1;
    for (std::size_t j = 0; j < m; ++j) {
        const Run& r = out[j];
        q[j] = r.side;
        q[m + j] = r.line;
        q[2 * m + j] = r.lo;
        q[3 * m + j] = r.hi;
        q[4 * m + j] = r.key;
        q[5 * m + j] = r.id;
    }

    // 4. Closed: the children's, then the roots without a run on the new border, ascending.
    for (const Span64& c : closed) sum.insert(sum.end(), c.data, c.data + c.size);
    for (std::uint32_t v = 0; v < nodes.size(); ++v)
        if (root[v] == v && !open[v]) sum.push_back(nodes[v]);
    return res;
}

// _tree_merge(children: [summary int64], y0, x0, h, w, seams int64 ascending, connectivity)
//     -> (summary int64, renamed uint64, to uint64).
std::tuple<nb::ndarray<nb::numpy, std::int64_t>, nb::ndarray<nb::numpy, std::uint64_t>,
           nb::ndarray<nb::numpy, std::uint64_t>>
py_tree_merge(const std::vector<Summary>& children, std::int64_t y0, std::int64_t x0, std::int64_t h, std::int64_t w,
              const std::vector<std::int64_t>& seams, int connectivity) {
    if (connectivity != 4 && connectivity != 8) throw nb::value_error("_tree_merge: connectivity must be 4 or 8");
    std::size_t n = 0, nc = 0;
    for (const Summary& c : children) {
        const std::size_t size = c.shape(0);
        const std::int64_t m = size ? c.data()[0] : -1;
        if (m < 0 || std::uint64_t(m) > (size - 1) / 6)
            throw nb::value_error("_tree_merge: a summary is not [m, (6, m) runs, closed ids]");
        n += std::size_t(m);
        nc += size - 1 - 6 * std::size_t(m);
    }
    std::vector<Run> runs;
    runs.reserve(n);
    std::vector<Span64> closed;
    closed.reserve(children.size());
    for (const Summary& c : children) {
        const std::int64_t* p = c.data();
        const std::size_t k = std::size_t(p[0]);
        ++p;
        for (std::size_t j = 0; j < k; ++j) {
            if (p[j] < 0 || p[j] > 3) throw nb::value_error("_tree_merge: a run's side is not 0..3");
            runs.push_back(Run{p[j], p[k + j], p[2 * k + j], p[3 * k + j], p[4 * k + j], p[5 * k + j]});
        }
        closed.push_back(Span64{p + 6 * k, c.shape(0) - 1 - 6 * k});
    }
    Result res;
    {
        nb::gil_scoped_release unlock;
        res = merge(runs, closed, nc, y0, x0, h, w, seams, connectivity);
    }
    return {owned_array(std::move(res.summary)), owned_array(std::move(res.renamed)), owned_array(std::move(res.to))};
}

}  // namespace

void register_tree_merge(nb::module_& m) {
    m.def("_tree_merge", &py_tree_merge, "children"_a, "y0"_a, "x0"_a, "h"_a, "w"_a, "seams"_a, "connectivity"_a);
}
