#pragma once
/// @file verify.hpp
/// @brief A correctness certificate: checks any label image in O(pixels), with no second labeller.
#include <cstdint>
#include <string>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel {

/// The verdict of verify(). When ok is false, message says what is wrong and (x, y) where.
struct VerifyReport {
    bool ok = true;
    std::string message;
    std::int64_t x = -1;
    std::int64_t y = -1;
    std::uint32_t count = 0;  ///< N read off the labels when ok
};

/// Checks that @p labels is exactly the labelling of @p image under @p options:
/// background ⇔ 0; every label has one value; same-valued neighbours share a label; every label is
/// connected; labels are exactly 1..N with first occurrences in increasing raster order.
/// Throws Error only for bad arguments (as label() would); a wrong labelling is a report.
VerifyReport verify(const ImageView& image, const std::uint32_t* labels, const Options& options = {});

}  // namespace cclabel
