#pragma once
// Reading a label image that another tool wrote, keeping its values: 32-bit TIFF, 8/16-bit PNG or
// TIFF, .npy of bool, (u)int8/16/32 and (u)int64 (64-bit values must fit 0..2^32 - 1).
#include <cstdint>
#include <string>
#include <vector>

namespace cclabel::cli {

struct LabelFile {
    std::int64_t width = 0, height = 0;
    std::int64_t depth = 1;  ///< slices of height rows (read_label_volume)
    std::vector<std::uint32_t> labels;
    std::string description;
};

/// Throws cclabel::Error("<path>: <reason>") for anything that is not a one-channel label image.
LabelFile read_label_file(const std::string& path);

/// A label volume (check --volume): a (Z, Y, X) .npy of the dtypes above, or a TIFF of one page a
/// slice (io::read_volume); throws as read_label_file does.
LabelFile read_label_volume(const std::string& path);

}  // namespace cclabel::cli
