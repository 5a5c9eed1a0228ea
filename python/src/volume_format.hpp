#pragma once
// The format Python names for a volume's dtype, checked against the array's element size (for
// the labeller in volume.cpp and the statistics in volume_stats.cpp alike).
#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>

#include "cclabel/image_view.hpp"

namespace cclabel_py {

inline cclabel::PixelFormat volume_format(int format, std::size_t itemsize) {
    const auto f = cclabel::PixelFormat(format);
    const std::int64_t item = cclabel::bytes_per_pixel(f);
    if (item == 0 || std::int64_t(itemsize) != item)
        throw nanobind::type_error(("image: element size " + std::to_string(itemsize) + " does not match format " +
                                    std::string(cclabel::format_name(f)))
                                       .c_str());
    return f;
}

}  // namespace cclabel_py
