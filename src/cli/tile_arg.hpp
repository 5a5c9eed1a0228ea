#pragma once
// Parsing of --tile WxH, the tile size of tiled labelling (cclabel::label_tiled).
#include <cstdint>
#include <string>

namespace cclabel::cli {

struct TileSize {
    std::int64_t width = 0, height = 0;
};

/// Parses "WxH" (or "WXH"): two decimal integers, each 1..2^31 − 1, joined by one 'x'. Throws
/// cclabel::Error with a one-line reason for anything else ("0x5", "abc", "10", "-3x4", "4x4x4").
TileSize parse_tile(const std::string& text);

}  // namespace cclabel::cli
