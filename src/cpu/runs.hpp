#pragma once
// Runs of equal value along a row: the nodes of the CPU labeller's union-find.
//
// A row is cut into maximal runs of one key; background runs are dropped. Runs are stored in raster
// order, so a run's index orders it like its first pixel, and hanging the larger root under the
// smaller (min-linking) leaves every region rooted at its first run, hence at its first pixel.
#include <cstdint>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"

namespace cclabel::cpu {

/// The runs of a band of consecutive rows, structure-of-arrays.
struct RunTable {
    std::vector<std::uint32_t> start;  ///< first x of each run
    std::vector<std::uint32_t> end;    ///< last x of each run (inclusive)
    std::vector<std::uint32_t> key;    ///< the run's value key
    std::vector<std::uint32_t> row_begin;  ///< index of each row's first run; one extra entry at the end

    std::uint32_t size() const { return std::uint32_t(start.size()); }
};

/// Appends the runs of one row to @p t. Background runs (when @p has_bg) are skipped.
template <PixelFormat F>
void find_runs(const std::uint8_t* row, std::uint32_t width, bool has_bg, std::uint32_t bg, RunTable& t) {
    using T = detail::PixelTraits<F>;
    std::uint32_t x = 0;
    while (x < width) {
        const std::uint32_t k = T::key(row + std::size_t(x) * T::kBytes);
        std::uint32_t e = x + 1;
        while (e < width && T::key(row + std::size_t(e) * T::kBytes) == k) ++e;
        if (!(has_bg && k == bg)) {
            t.start.push_back(x);
            t.end.push_back(e - 1);
            t.key.push_back(k);
        }
        x = e;
    }
}

}  // namespace cclabel::cpu
