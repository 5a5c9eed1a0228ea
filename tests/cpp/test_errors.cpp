// Every bad argument gives a cclabel::Error whose message names the problem, before anything is
// read or written (the pointers here are dummies that must never be dereferenced).
#include <gtest/gtest.h>

#include "cclabel/cclabel.hpp"

namespace cclabel {
namespace {

// A non-null address that is never valid to read: the checks must reject before any access.
const void* const kDummy = reinterpret_cast<const void*>(std::uintptr_t(0x10));
std::uint32_t* const kDummyOut = reinterpret_cast<std::uint32_t*>(std::uintptr_t(0x10));

void expect_error(const ImageView& v, std::uint32_t* out, const Options& o, const std::string& needle) {
    try {
        label(v, out, o);
        ADD_FAILURE() << "no error; expected one containing '" << needle << "'";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
    }
}

TEST(Errors, NullDataForNonEmptyImage) {
    std::uint32_t out[4];
    expect_error(make_view(nullptr, 2, 2, PixelFormat::Gray8), out, {}, "image data is null");
}

TEST(Errors, NullOutput) {
    std::uint8_t px[4] = {};
    expect_error(make_view(px, 2, 2, PixelFormat::Gray8), nullptr, {}, "output label buffer is null");
}

TEST(Errors, NullPointersAreFineForEmptyImages) {
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {0, 5}, {5, 0}})
        EXPECT_EQ(label(make_view(nullptr, w, h, PixelFormat::RGB8), nullptr).count, 0u);
}

TEST(Errors, NegativeSizes) {
    expect_error(make_view(kDummy, -1, 5, PixelFormat::Gray8), kDummyOut, {}, "must not be negative");
    expect_error(make_view(kDummy, 5, -1, PixelFormat::Gray8), kDummyOut, {}, "must not be negative");
}

TEST(Errors, StrideSmallerThanRow) {
    expect_error(make_view(kDummy, 10, 2, PixelFormat::RGB8, 29), kDummyOut, {}, "smaller than a row");
    expect_error(make_view(kDummy, 10, 2, PixelFormat::Gray16, 19), kDummyOut, {}, "smaller than a row");
}

TEST(Errors, NegativeStride) {
    expect_error(make_view(kDummy, 10, 2, PixelFormat::Gray8, -10), kDummyOut, {}, "negative row stride");
}

TEST(Errors, UnknownFormat) {
    expect_error(make_view(kDummy, 2, 2, static_cast<PixelFormat>(42)), kDummyOut, {}, "unknown pixel format 42");
}

TEST(Errors, TooManyPixels) {
    // 65536 × 65536 = 2^32 wraps to 0 in 32 bits and must still be rejected; so must larger ones.
    expect_error(make_view(kDummy, 65536, 65536, PixelFormat::Binary8), kDummyOut, {}, "more than 4294967295");
    expect_error(make_view(kDummy, 65536, 65537, PixelFormat::Binary8), kDummyOut, {}, "more than 4294967295");
    expect_error(make_view(kDummy, std::int64_t(1) << 40, std::int64_t(1) << 40, PixelFormat::U32), kDummyOut, {},
                 "more than 4294967295");
    // Exactly 2^32 - 1 pixels passes the size check (validate reads nothing).
    EXPECT_NO_THROW(validate(make_view(kDummy, 65535, 65537, PixelFormat::Binary8), kDummyOut, {}));
}

TEST(Errors, StrideTimesHeightOverflow) {
    expect_error(make_view(kDummy, 1, 4, PixelFormat::Gray8, std::int64_t(1) << 62), kDummyOut, {}, "overflows");
}

TEST(Errors, Connectivity) {
    std::uint8_t px[1] = {};
    std::uint32_t out[1];
    for (int c : {0, 1, 6, 26, -1}) {
        Options o;
        o.connectivity = c;
        expect_error(make_view(px, 1, 1, PixelFormat::Gray8), out, o, "connectivity must be 4 or 8");
    }
}

TEST(Errors, BackgroundOfTheWrongFormat) {
    std::uint8_t px[4] = {};
    std::uint32_t out[4];
    Options o;
    o.background = std::vector<std::uint64_t>{256, 0, 0};
    expect_error(make_view(px, 1, 1, PixelFormat::RGB8), out, o, "out of range for rgb8");
    o.background = std::vector<std::uint64_t>{1, 2, 3};
    expect_error(make_view(px, 2, 2, PixelFormat::Gray16), out, o, "has 3 channel(s), but a gray16 pixel has 1");
    o.background = std::vector<std::uint64_t>{255};
    expect_error(make_view(px, 1, 1, PixelFormat::RGBA8), out, o, "has 1 channel(s), but a rgba8 pixel has 4");
    o.background = std::vector<std::uint64_t>{70000};
    expect_error(make_view(px, 2, 1, PixelFormat::Gray16), out, o, "out of range for gray16");
    o.background = std::vector<std::uint64_t>{0x100000000ull};
    expect_error(make_view(px, 1, 1, PixelFormat::U32), out, o, "out of range for u32");
    o.background = std::vector<std::uint64_t>{1};
    expect_error(make_view(px, 2, 2, PixelFormat::Binary8), out, o, "binary8 images always have background 0");
}

TEST(Errors, Threads) {
    std::uint8_t px[1] = {};
    std::uint32_t out[1];
    Options o;
    o.threads = -2;
    expect_error(make_view(px, 1, 1, PixelFormat::Gray8), out, o, "thread count must not be negative");
}

TEST(Errors, UnknownBackend) {
    std::uint8_t px[1] = {};
    std::uint32_t out[1];
    Options o;
    o.backend = static_cast<Backend>(9);
    expect_error(make_view(px, 1, 1, PixelFormat::Gray8), out, o, "unknown backend 9");
}

TEST(Errors, CudaBackendWithoutDevice) {
    if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
    std::uint8_t px[4] = {1, 2, 3, 4};
    std::uint32_t out[4];
    Options o;
    o.backend = Backend::Cuda;
    try {
        label(make_view(px, 2, 2, PixelFormat::Gray8), out, o);
        ADD_FAILURE() << "backend cuda without a device must fail";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos) << e.what();
    }
    // auto falls back to the CPU and gives the CPU's labels.
    o.backend = Backend::Auto;
    const LabelResult r = label(make_view(px, 2, 2, PixelFormat::Gray8), out, o);
    EXPECT_EQ(r.backend, Backend::Cpu);
    EXPECT_EQ(r.count, 4u);
}

TEST(Errors, LibraryAllocatedOutputValidatesFirst) {
    EXPECT_THROW(label(make_view(kDummy, 65536, 65536, PixelFormat::U32)), Error);
    EXPECT_THROW(label(make_view(nullptr, 3, 3, PixelFormat::U32)), Error);
}

}  // namespace
}  // namespace cclabel
