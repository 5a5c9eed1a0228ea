#pragma once
// The format Python names for a volume's dtype, checked against the array's element size (for
// the labeller in volume.cpp and the statistics in volume_stats.cpp alike), and RGB/RGBA volumes'.
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

/// The format of a host volume that crosses as (Z, Y, X * channels) (the labeller's and the
/// statistics'): channels 1 is volume_format(); an RGB (3) or RGBA (4) volume (Z, Y, X, C) of uint8
/// crosses as its bytes, with @p format RGB8 or RGBA8 and @p row_items = X * C.
inline cclabel::PixelFormat volume_format(int format, std::size_t itemsize, std::size_t row_items, int channels) {
    if (channels == 1) return volume_format(format, itemsize);
    const auto f = cclabel::PixelFormat(format);
    if (itemsize != 1 || cclabel::bytes_per_pixel(f) != channels || row_items % std::size_t(channels) != 0)
        throw nanobind::type_error("image: an RGB or RGBA volume must be uint8 of shape (Z, Y, X, 3 or 4)");
    return f;
}

}  // namespace cclabel_py
