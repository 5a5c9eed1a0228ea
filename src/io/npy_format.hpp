#pragma once
// The parts of the NumPy .npy format (format version 1.0-3.0) that the reader and writer share.
#include <cstdint>
#include <string>
#include <vector>

namespace cclabel::io::detail {

inline constexpr char kNpyMagic[] = "\x93NUMPY";  // 6 bytes, then major and minor version

/// A parsed header dictionary.
struct NpyHeader {
    std::string descr;                  ///< e.g. "<u4"
    bool fortran_order = false;
    std::vector<std::uint64_t> shape;
};

/// Parses the Python-literal header dictionary strictly: exactly the keys descr, fortran_order and
/// shape; anything else, or any malformed literal, throws Error naming @p path.
NpyHeader parse_npy_header(const std::string& path, const std::string& text);

}  // namespace cclabel::io::detail
