#pragma once
// Parsing of --background: "#rrggbb", "#rrggbbaa", "r,g,b[,a]", a plain integer, a number of a
// typed image's type (-1, 0.5, nan, -0, ...), or "auto"; and its value for one page.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::cli {

/// A bad option found only when a page shows what it means (a --background that the page's type
/// cannot hold): one line, and the tool's exit code for bad options (2).
class BadOption : public Error {
public:
    using Error::Error;
};

struct BackgroundArg {
    bool automatic = false;             ///< "auto": the most frequent value of each image
    /// Per channel, when not automatic; empty for a number only a typed image (signed, float or
    /// 64-bit .npy) takes: negative, fractional, nan, inf.
    std::vector<std::uint64_t> value;
    std::string text;                   ///< as given, parsed again for a typed image
};

/// Parses @p text; throws cclabel::Error with a one-line reason for anything else.
BackgroundArg parse_background(const std::string& text);

/// Sets @p o's background for @p image from @p bg: for a typed image (I8 to F64) the text as a
/// value of its type in Options::background_value (auto: its most frequent value by the library's
/// equality); otherwise per channel in Options::background (auto: the most frequent value, none for
/// Binary8 or an empty image). Throws BadOption naming --background when the image cannot take it.
void resolve_background(const BackgroundArg& bg, const ImageView& image, Options& o);

}  // namespace cclabel::cli
