#pragma once
// Parsing of --background: "#rrggbb", "#rrggbbaa", "r,g,b[,a]", a plain integer, or "auto".
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cclabel::cli {

struct BackgroundArg {
    bool automatic = false;             ///< "auto": the most frequent value of each image
    std::vector<std::uint64_t> value;   ///< per channel, when not automatic
};

/// Parses @p text; throws cclabel::Error with a one-line reason for anything else.
BackgroundArg parse_background(const std::string& text);

}  // namespace cclabel::cli
