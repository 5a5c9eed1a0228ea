// parse_tile (--tile WxH): what it accepts, and a one-line reason for everything it refuses.
#include <gtest/gtest.h>

#include <string>

#include "cclabel/error.hpp"
#include "cli/tile_arg.hpp"

namespace cclabel::cli {
namespace {

TEST(TileArg, AcceptsWidthByHeight) {
    for (const auto& [text, w, h] : {std::tuple{"1x1", 1, 1},
                                     {"4096x4096", 4096, 4096},
                                     {"1x7", 1, 7},
                                     {"7x1", 7, 1},
                                     {"640X480", 640, 480},
                                     {"007x08", 7, 8},
                                     {"2147483647x1", 2147483647, 1}}) {
        const TileSize t = parse_tile(text);
        EXPECT_EQ(t.width, w) << text;
        EXPECT_EQ(t.height, h) << text;
    }
}

// The message of parse_tile(text)'s Error; fails the test when it does not throw.
std::string refusal(const std::string& text) {
    try {
        parse_tile(text);
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "'" << text << "' was accepted";
    return {};
}

TEST(TileArg, RefusesWithOneLineNamingTheProblem) {
    const struct {
        const char* text;
        const char* reason;
    } cases[] = {
        {"", "expected WxH"},
        {"10", "expected WxH"},
        {"abc", "expected WxH"},
        {"0x5", "width must be at least 1"},
        {"5x0", "height must be at least 1"},
        {"x5", "width is missing"},
        {"5x", "height is missing"},
        {"-3x4", "width '-3' is not a positive integer"},
        {"+3x4", "width '+3' is not a positive integer"},
        {"3x-4", "height '-4' is not a positive integer"},
        {"4x4x4", "height '4x4' is not a positive integer"},
        {" 4x4", "width ' 4' is not a positive integer"},
        {"4.5x4", "width '4.5' is not a positive integer"},
        {"10x10x", "height '10x' is not a positive integer"},
        {"2147483648x1", "more than 2147483647"},
        {"1x99999999999999999999999", "more than 2147483647"},
    };
    for (const auto& c : cases) {
        const std::string msg = refusal(c.text);
        EXPECT_NE(msg.find("bad --tile '" + std::string(c.text) + "'"), std::string::npos) << msg;
        EXPECT_NE(msg.find(c.reason), std::string::npos) << "'" << c.text << "': " << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
}

}  // namespace
}  // namespace cclabel::cli
