#pragma once
// Global labels of full-width strips before the last strip is seen: what lets the streamed GPU
// pipeline (src/cuda/tiles_cuda.cu) download a strip's labels while later strips still upload.
//
// Strips of the whole width, labelled top to bottom, number their labels in global raster order
// when strip t's local label l gets the id start(t) + l − 1: a region's first pixel is then its
// smallest id. A union-find over ids (the smaller id stays the root) joined seam by seam says, at
// any moment, which regions the strips seen so far make, and a root's global label is its rank
// among the roots. A later strip can still join two regions that are roots now (a U whose arms
// meet below): the larger root then dies, and every label above it drops by one. So a map given
// out early is a guess, right unless such a join reaches back into a strip already mapped;
// broken() says when one has. The caller must check each early map against the final one all the
// same (the pipeline compares it with resolve_tiles()'s): broken() is what stops it guessing on
// pictures where the guesses keep failing (noise), not what makes its answer right.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace cclabel::detail {

class StripNumbering {
public:
    /// Guesses stop (broken() turns true) once more than @p max_ids ids would be held: the
    /// structure takes 12 bytes an id.
    explicit StripNumbering(std::uint64_t max_ids) : max_ids_(max_ids) { start_.push_back(0); }

    /// The next strip (number strips() before the call) has @p n local labels, 1..n in raster order.
    void add_strip(std::uint32_t n) {
        const std::uint64_t total = start_.back() + n;
        start_.push_back(total);
        if (broken_) return;
        if (total > max_ids_) {
            stop();
            return;
        }
        const std::uint64_t from = parent_.size();
        parent_.resize(total);
        rank_.resize(total);
        for (std::uint64_t x = from; x < total; ++x) parent_[x] = x;
    }

    /// Joins the pairs (local label in strip t − 1, local label in strip t), flattened, of the seam
    /// above strip t. Labels out of range make the structure give up (broken), never read past it.
    void unite(std::uint64_t t, const std::uint32_t* pairs, std::size_t values) {
        if (broken_) return;
        if (t == 0 || t >= strips()) {
            stop();
            return;
        }
        const std::uint64_t a0 = start_[t - 1], na = start_[t] - a0, b0 = start_[t], nb = start_[t + 1] - b0;
        for (std::size_t k = 0; k + 1 < values; k += 2) {
            const std::uint64_t la = pairs[k], lb = pairs[k + 1];
            if (la == 0 || la > na || lb == 0 || lb > nb) {
                stop();
                return;
            }
            std::uint64_t ra = find(a0 + la - 1), rb = find(b0 + lb - 1);
            if (ra == rb) continue;
            if (ra > rb) std::swap(ra, rb);
            parent_[rb] = ra;  // rb dies
            if (rb < start_[mapped_]) broken_ = true;  // a strip already mapped had it as a root
        }
    }

    /// The map of strip mapped() as the strips seen so far number it: map[0] = 0 and map[l] = the
    /// global label of local label l (l = 1..n); @p map has n + 1 entries. Returns false (and
    /// writes nothing) when broken, when every strip seen is mapped, or when a label would not fit
    /// Out. Strips are mapped in order.
    template <typename Out>
    bool next_map(Out* map) {
        if (broken_ || mapped_ + 1 >= start_.size()) return false;
        const std::uint64_t j = mapped_, s = start_[j], n = start_[j + 1] - s;
        const std::uint64_t base = j == 0 ? 0 : base_[j - 1] + roots_[j - 1];
        if (base + n > std::uint64_t(Out(~Out(0)))) {
            stop();
            return false;
        }
        // Roots first: their rank in the strip is a running count, no lookup.
        std::uint32_t count = 0;
        map[0] = 0;
        for (std::uint64_t k = 0; k < n; ++k)
            if (parent_[s + k] == s + k) {
                rank_[s + k] = ++count;
                map[k + 1] = Out(base + count);
            }
        base_.push_back(base);
        roots_.push_back(count);
        for (std::uint64_t k = 0; k < n; ++k) {
            const std::uint64_t x = s + k;
            if (parent_[x] == x) continue;
            const std::uint64_t r = find(x);
            const std::uint64_t i = r >= s ? j : strip_of(r);
            map[k + 1] = Out(base_[i] + rank_[r]);
        }
        ++mapped_;
        return true;
    }

    /// No more maps (the caller could not give a seam, e.g.).
    void give_up() { stop(); }

    std::uint64_t strips() const noexcept { return start_.size() - 1; }
    std::uint64_t mapped() const noexcept { return mapped_; }
    /// A join reached a strip already mapped (its map may be stale), or the ids passed the cap, or
    /// the seams were malformed: no more maps.
    bool broken() const noexcept { return broken_; }

private:
    std::uint64_t find(std::uint64_t x) {
        while (parent_[x] != x) {
            parent_[x] = parent_[parent_[x]];  // path halving: the smaller id stays above
            x = parent_[x];
        }
        return x;
    }
    std::uint64_t strip_of(std::uint64_t id) const {
        return std::uint64_t(std::upper_bound(start_.begin(), start_.end(), id) - start_.begin()) - 1;
    }
    void stop() {
        broken_ = true;
        parent_ = {};
        rank_ = {};
    }

    std::uint64_t max_ids_;
    std::vector<std::uint64_t> start_;   // first id of each strip; the last entry is the id count
    std::vector<std::uint64_t> parent_;  // by id
    std::vector<std::uint32_t> rank_;    // by id, for the roots of mapped strips: rank in the strip
    std::vector<std::uint64_t> base_;    // by mapped strip: the roots of the strips before it
    std::vector<std::uint32_t> roots_;   // by mapped strip: its roots when it was mapped
    std::uint64_t mapped_ = 0;
    bool broken_ = false;
};

}  // namespace cclabel::detail
