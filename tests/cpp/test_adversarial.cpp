// TESTING.md's adversarial pictures through the CPU labeller: every case in several formats, both
// connectivities, with and without background, at 1, 3 and 7 threads, against the reference.
#include <gtest/gtest.h>

#include "cpp/label_check.hpp"
#include "support/adversarial.hpp"

namespace cclabel::test {
namespace {

class Adversarial : public ::testing::TestWithParam<std::size_t> {};

const std::vector<CaseMaker>& makers() {
    static const std::vector<CaseMaker> ms = adversarial_makers();
    return ms;
}

TEST_P(Adversarial, MatchesReference) {
    const Case c = makers()[GetParam()].make();
    std::vector<PixelFormat> formats{PixelFormat::U32, PixelFormat::RGB8};
    if (c.binary) formats.push_back(PixelFormat::Binary8);
    for (PixelFormat f : formats) {
        const TestImage img = make_image(c.width, c.height, f, c.v, f == PixelFormat::RGB8 ? 5 : 0, 1);
        for (int conn : {4, 8})
            for (auto bg : {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{0}}) {
                if (f == PixelFormat::Binary8 && !bg) continue;  // binary always has background 0
                std::uint32_t n_ref = 0;
                const auto ref = flood_fill(img.values, img.width, img.height, conn,
                                            reference_background(f, bg), &n_ref);
                if (f == PixelFormat::U32 && !bg) {
                    if (conn == 4 && c.expect4) EXPECT_EQ(n_ref, *c.expect4) << c.name << ": reference disagrees with analysis";
                    if (conn == 8 && c.expect8) EXPECT_EQ(n_ref, *c.expect8) << c.name << ": reference disagrees with analysis";
                }
                for (int threads : {1, 3, 7}) {
                    const std::string what = c.name + " " + std::string(format_name(f)) + " conn " +
                                             std::to_string(conn) + (bg ? " bg" : "") + " threads " +
                                             std::to_string(threads);
                    expect_labels(img, make_options(img, conn, bg, threads), ref, n_ref, what);
                    if (HasFailure()) return;
                }
            }
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, Adversarial, ::testing::Range<std::size_t>(0, makers().size()),
                         [](const auto& info) {
                             std::string n = std::to_string(info.param) + "_" + makers()[info.param].name;
                             for (char& ch : n)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return n;
                         });

// A29: pixels that differ only in one channel, only in alpha, or only in the high byte.
TEST(Adversarial, OneChannelOff) {
    const std::int64_t w = 64, h = 64;
    auto check_stripes = [&](PixelFormat f, const std::vector<std::vector<std::uint8_t>>& stripe_pixels) {
        const int bpp = bytes_per_pixel(f);
        std::vector<std::uint8_t> buf(std::size_t(w * h * bpp));
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                const auto& p = stripe_pixels[std::size_t(y % std::int64_t(stripe_pixels.size()))];
                std::copy(p.begin(), p.end(), buf.begin() + (y * w + x) * bpp);
            }
        for (int conn : {4, 8}) {
            Options o;
            o.connectivity = conn;
            const Labels l = label(make_view(buf.data(), w, h, f), o);
            EXPECT_EQ(l.count, std::uint32_t(h)) << format_name(f) << " conn " << conn;
        }
    };
    check_stripes(PixelFormat::RGB8, {{10, 20, 30}, {11, 20, 30}, {10, 21, 30}, {10, 20, 31}});
    check_stripes(PixelFormat::RGBA8, {{10, 20, 30, 0}, {10, 20, 30, 1}, {10, 20, 30, 255}});
    check_stripes(PixelFormat::Gray16, {{1, 0}, {0, 1}});
    check_stripes(PixelFormat::U32, {{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 0, 0, 0}});
}

// A35: row padding and base offsets filled with a colour that would join if it were read.
TEST(Adversarial, PaddingAndOffsetPoison) {
    const auto vals = percolation(97, 61, 0.6, 3).v;
    for (PixelFormat f : {PixelFormat::RGB8, PixelFormat::Gray16, PixelFormat::U32, PixelFormat::RGBA8})
        for (std::int64_t pad : {1, 3, 64, 4096})
            for (std::int64_t off : {1, 2, 3}) {
                // poison 0x01 makes every padding byte look like colour 1, the foreground colour
                const TestImage img = make_image(97, 61, f, vals, pad, off, 0x01);
                std::uint32_t n_ref = 0;
                const auto ref = flood_fill(img.values, 97, 61, 8, std::nullopt, &n_ref);
                expect_labels(img, make_options(img, 8, std::nullopt, 3), ref, n_ref,
                              std::string(format_name(f)) + " pad " + std::to_string(pad) + " offset " + std::to_string(off));
            }
}

}  // namespace
}  // namespace cclabel::test
