// The certificate accepts right labellings and catches each kind of wrong one, saying where.
#include <gtest/gtest.h>

#include "cclabel/cclabel.hpp"
#include "support/test_image.hpp"

namespace cclabel {
namespace {

struct Fixture {
    // 0 0 1 1
    // 2 0 1 0
    // 2 2 0 3
    std::vector<std::uint8_t> px{0, 0, 1, 1, 2, 0, 1, 0, 2, 2, 0, 3};
    ImageView view() const { return make_view(px.data(), 4, 3, PixelFormat::Gray8); }
    Options opts(int conn) const {
        Options o;
        o.connectivity = conn;
        o.background = std::vector<std::uint64_t>{0};
        return o;
    }
};

TEST(Verify, AcceptsTheLabellerOutput) {
    Fixture f;
    for (int conn : {4, 8}) {
        const Labels l = label(f.view(), f.opts(conn));
        const VerifyReport r = verify(f.view(), l.data.data(), f.opts(conn));
        EXPECT_TRUE(r.ok) << r.message;
        EXPECT_EQ(r.count, l.count);
    }
}

TEST(Verify, CatchesEachKindOfError) {
    Fixture f;
    const Labels good = label(f.view(), f.opts(8));  // [0 0 1 1 / 2 0 1 0 / 2 2 0 3]
    ASSERT_EQ(good.data, (std::vector<std::uint32_t>{0, 0, 1, 1, 2, 0, 1, 0, 2, 2, 0, 3}));
    auto check = [&](std::vector<std::uint32_t> lab, const std::string& needle, std::int64_t x, std::int64_t y,
                     int conn = 8) {
        const VerifyReport r = verify(f.view(), lab.data(), f.opts(conn));
        EXPECT_FALSE(r.ok) << needle;
        EXPECT_NE(r.message.find(needle), std::string::npos) << r.message;
        EXPECT_EQ(r.x, x) << r.message;
        EXPECT_EQ(r.y, y) << r.message;
    };
    check({1, 0, 2, 2, 3, 0, 2, 0, 3, 3, 0, 4}, "background pixel has label 1", 0, 0);
    check({0, 0, 1, 1, 2, 0, 0, 0, 2, 2, 0, 3}, "foreground pixel has label 0", 2, 1);
    check({0, 0, 2, 2, 1, 0, 2, 0, 1, 1, 0, 3}, "label 2 first appears before label 1", 2, 0);
    check({0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 2}, "covers pixels of two different values", 0, 1);
    check({0, 0, 1, 2, 3, 0, 1, 0, 3, 3, 0, 4}, "a region is split", 3, 0);
    // Two separate regions of the same value sharing a label: 4-connectivity splits the 2s from
    // nothing here, so build one: value 5 at both ends of a row.
    std::vector<std::uint8_t> px2{5, 0, 5};
    Options o;
    o.background = std::vector<std::uint64_t>{0};
    std::vector<std::uint32_t> merged{1, 0, 1};
    const VerifyReport r = verify(make_view(px2.data(), 3, 1, PixelFormat::Gray8), merged.data(), o);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.message.find("not connected"), std::string::npos) << r.message;
    EXPECT_EQ(r.x, 2);
}

TEST(Verify, DiagonalJoinDependsOnConnectivity) {
    std::vector<std::uint8_t> px{1, 0, 0, 1};
    const ImageView v = make_view(px.data(), 2, 2, PixelFormat::Binary8);
    std::vector<std::uint32_t> one{1, 0, 0, 1}, two{1, 0, 0, 2};
    Options o8, o4;
    o4.connectivity = 4;
    EXPECT_TRUE(verify(v, one.data(), o8).ok);
    EXPECT_FALSE(verify(v, two.data(), o8).ok);
    EXPECT_TRUE(verify(v, two.data(), o4).ok);
    EXPECT_FALSE(verify(v, one.data(), o4).ok);
}

TEST(Verify, ArgumentsAreValidated) {
    std::vector<std::uint8_t> px{1};
    EXPECT_THROW(verify(make_view(px.data(), 1, 1, PixelFormat::Gray8), nullptr), Error);
}

}  // namespace
}  // namespace cclabel
