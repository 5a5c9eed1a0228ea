#include "cli/background_arg.hpp"

#include <cctype>
#include <charconv>

#include "cclabel/error.hpp"
#include "cli/pixel_census.hpp"
#include "cli/typed_values.hpp"

namespace cclabel::cli {
namespace {

std::uint64_t parse_number(const std::string& s, const std::string& whole) {
    std::uint64_t v = 0;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) b += 2, base = 16;
    const auto [p, ec] = std::from_chars(b, e, v, base);
    if (s.empty() || ec != std::errc() || p != e)
        throw Error("bad --background '" + whole + "': '" + s + "' is not a non-negative integer");
    return v;
}

}  // namespace

BackgroundArg parse_background(const std::string& text) {
    BackgroundArg a;
    a.text = text;
    if (text == "auto") {
        a.automatic = true;
        return a;
    }
    if (!text.empty() && text[0] == '#') {
        const std::string hex = text.substr(1);
        if ((hex.size() != 6 && hex.size() != 8) ||
            hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
            throw Error("bad --background '" + text + "': expected #rrggbb or #rrggbbaa");
        for (std::size_t i = 0; i < hex.size(); i += 2) a.value.push_back(std::stoul(hex.substr(i, 2), nullptr, 16));
        return a;
    }
    if (text.find(',') == std::string::npos) {
        // One number: a typed image may take what is not a channel value (-1, 0.5, nan, -0).
        try {
            a.value.push_back(parse_number(text, text));
        } catch (const Error&) {
            const bool typed_number = [&] {
                for (PixelFormat f : {PixelFormat::F64, PixelFormat::I64}) {
                    try {
                        parse_typed_value(text, f, "--background");
                        return true;
                    } catch (const Error&) {
                    }
                }
                return false;
            }();
            if (!typed_number)
                throw Error("bad --background '" + text +
                            "': expected #rrggbb, #rrggbbaa, r,g,b, a number or auto");
        }
        return a;
    }
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        a.value.push_back(parse_number(text.substr(start, comma - start), text));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (a.value.size() > 4) throw Error("bad --background '" + text + "': at most 4 channels");
    return a;
}

void resolve_background(const BackgroundArg& bg, const ImageView& image, Options& o) {
    if (is_typed_format(image.format)) {
        if (bg.automatic) {
            if (const auto v = most_frequent_value(image)) o.background_value = *v;
            return;
        }
        if (bg.text.find_first_of("#,") != std::string::npos)
            throw BadOption("--background '" + bg.text + "': this " + dtype_name(image.format) +
                            " image takes one number as its background");
        try {
            o.background_value = parse_typed_value(bg.text, image.format, "--background");
        } catch (const Error& e) {
            throw BadOption(e.what());
        }
        return;
    }
    if (bg.automatic) {
        if (image.format != PixelFormat::Binary8 && image.pixels() != 0) o.background = most_frequent(image);
        return;
    }
    if (bg.value.empty())
        throw BadOption("--background '" + bg.text + "': negative, fractional, nan and inf values are for signed and "
                        "float .npy images; this " + std::string(format_name(image.format)) +
                        " image takes non-negative integers");
    o.background = bg.value;
}

}  // namespace cclabel::cli
