#pragma once
// What the CLI reports about a picture before labelling it: how many distinct values it holds, and
// which value is the most frequent (for --background auto).
#include <cstdint>
#include <optional>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::cli {

/// Number of distinct pixel values (all channels); for the typed formats (I8 to F64) the distinct
/// values by the library's equality (-0 and +0 one value, every NaN one value).
std::uint64_t count_distinct(const ImageView& image);

/// The most frequent pixel value, per channel (ties: the smallest key). Empty for an empty image.
std::vector<std::uint64_t> most_frequent(const ImageView& image);

/// The most frequent value of a picture of a typed format (I8 to F64), by the library's equality
/// (ties: the smallest value, NaN last), as a Scalar of its type for Options::background_value.
/// Empty for an empty image.
std::optional<Scalar> most_frequent_value(const ImageView& image);

}  // namespace cclabel::cli
