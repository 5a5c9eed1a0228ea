#include "cli/tile_arg.hpp"

#include <charconv>

#include "cclabel/error.hpp"

namespace cclabel::cli {
namespace {

// One side of WxH. The cap keeps W·H (a tile's pixel count) far from int64 overflow; label_tiled
// clips a tile to the image and rejects a clipped tile of more than 2^32 − 1 pixels itself.
constexpr std::int64_t kMaxSide = 0x7FFFFFFF;

std::int64_t parse_side(const std::string& s, const char* what, const std::string& whole) {
    const std::string bad = "bad --tile '" + whole + "': ";
    if (s.empty()) throw Error(bad + "the " + what + " is missing (expected WxH, e.g. 4096x4096)");
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
    // from_chars accepts a leading '-', which a size never has.
    if (s[0] == '-' || s[0] == '+' || ec == std::errc::invalid_argument || p != s.data() + s.size())
        throw Error(bad + "the " + what + " '" + s + "' is not a positive integer (expected WxH, e.g. 4096x4096)");
    if (ec == std::errc::result_out_of_range || v > kMaxSide)
        throw Error(bad + "the " + what + " " + s + " is more than " + std::to_string(kMaxSide));
    if (v < 1) throw Error(bad + "the " + what + " must be at least 1");
    return v;
}

}  // namespace

TileSize parse_tile(const std::string& text) {
    const std::size_t x = text.find_first_of("xX");
    if (x == std::string::npos)
        throw Error("bad --tile '" + text + "': expected WxH (width x height in pixels, e.g. 4096x4096)");
    return {parse_side(text.substr(0, x), "width", text), parse_side(text.substr(x + 1), "height", text)};
}

}  // namespace cclabel::cli
