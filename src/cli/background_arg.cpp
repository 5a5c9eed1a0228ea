#include "cli/background_arg.hpp"

#include <cctype>
#include <charconv>

#include "cclabel/error.hpp"

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

}  // namespace cclabel::cli
