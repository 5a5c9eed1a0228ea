#pragma once
// The obviously-correct reference for tolerance labelling: neighbours join when every channel
// differs by at most the tolerance. Pixels are given as channel values, so it shares no code with
// the library's readers.
#include <cstdint>
#include <optional>
#include <vector>

#include "reference/bfs_labels.hpp"

namespace cclabel::test {

/// @p channels: per pixel (row-major), @p nch values; @p background: a pixel whose channels all
/// equal it is labelled 0 and joins nothing.
inline std::vector<std::uint32_t> tolerance_flood_fill(const std::vector<std::uint64_t>& channels, int nch,
                                                       std::int64_t width, std::int64_t height, int connectivity,
                                                       std::uint64_t tolerance,
                                                       const std::optional<std::vector<std::uint64_t>>& background,
                                                       std::uint32_t* count = nullptr) {
    auto at = [&](std::int64_t p, int c) { return channels[std::size_t(p * nch + c)]; };
    auto is_bg = [&](std::int64_t p) {
        if (!background) return false;
        for (int c = 0; c < nch; ++c)
            if (at(p, c) != (*background)[std::size_t(c)]) return false;
        return true;
    };
    auto close = [&](std::int64_t p, std::int64_t q) {
        for (int c = 0; c < nch; ++c) {
            const std::uint64_t a = at(p, c), b = at(q, c);
            if ((a > b ? a - b : b - a) > tolerance) return false;
        }
        return true;
    };
    return bfs_labels(width, height, connectivity, is_bg, close, count);
}

}  // namespace cclabel::test
