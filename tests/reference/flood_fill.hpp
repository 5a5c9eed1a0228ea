#pragma once
// The obviously-correct reference labeller for exact values: neighbours join when their keys are
// equal. Lives in the tests only; every fast path is compared with it label for label.
#include <cstdint>
#include <optional>
#include <vector>

#include "reference/bfs_labels.hpp"

namespace cclabel::test {

/// @p values: one key per pixel (row-major, width × height); @p background: key labelled 0.
inline std::vector<std::uint32_t> flood_fill(const std::vector<std::uint64_t>& values, std::int64_t width,
                                             std::int64_t height, int connectivity,
                                             std::optional<std::uint64_t> background, std::uint32_t* count = nullptr) {
    return bfs_labels(
        width, height, connectivity,
        [&](std::int64_t p) { return background && values[std::size_t(p)] == *background; },
        [&](std::int64_t p, std::int64_t q) { return values[std::size_t(p)] == values[std::size_t(q)]; }, count);
}

}  // namespace cclabel::test
