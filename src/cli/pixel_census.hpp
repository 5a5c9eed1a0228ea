#pragma once
// What the CLI reports about a picture before labelling it: how many distinct values it holds, and
// which value is the most frequent (for --background auto).
#include <cstdint>
#include <vector>

#include "cclabel/image_view.hpp"

namespace cclabel::cli {

/// Number of distinct pixel values (all channels).
std::uint64_t count_distinct(const ImageView& image);

/// The most frequent pixel value, per channel (ties: the smallest key). Empty for an empty image.
std::vector<std::uint64_t> most_frequent(const ImageView& image);

}  // namespace cclabel::cli
