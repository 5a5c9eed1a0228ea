// label_batch: every image of a uniform (B, H, W) batch and of a ragged batch labelled as label()
// labels it alone (and as the flood fill does), counts per image; B = 0, 1 and many; row and
// batch padding; images stored out of order; thread counts; every error.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "cclabel/batch.hpp"
#include "cclabel/cclabel.hpp"
#include "cpp/label_check.hpp"

namespace cclabel::test {
namespace {

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                    PixelFormat::U32,     PixelFormat::RGB8,  PixelFormat::RGBA8};

Options batch_options(PixelFormat f, int conn, bool bg, int threads) {
    Options o;
    o.connectivity = conn;
    o.threads = threads;
    if (bg && f != PixelFormat::Binary8) o.background = background_channels(f, 0);
    return o;
}

// Image b of a batch, compared with label() of that image alone and with the flood fill.
void expect_image(const TestImage& img, const Options& o, const std::uint32_t* got, std::uint32_t count,
                  const std::string& what) {
    const std::size_t n = std::size_t(img.width * img.height);
    std::vector<std::uint32_t> want(n);
    const std::uint32_t n_want = n ? label(img.view(), want.data(), o).count : 0;
    ASSERT_EQ(count, n_want) << what;
    std::uint32_t n_ref = 0;
    const auto ref = flood_fill(img.values, img.width, img.height, o.connectivity,
                                reference_background(img.format, o.background ? std::optional<std::uint64_t>(0)
                                                                              : std::nullopt),
                                &n_ref);
    ASSERT_EQ(count, n_ref) << what << " (reference)";
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i], want[i]) << what << " at " << i;
        ASSERT_EQ(got[i], ref[i]) << what << " (reference) at " << i;
    }
}

TEST(Batch, UniformEqualsPerImageLabel) {
    std::uint32_t seed = 3;
    for (PixelFormat f : kFormats)
        for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {13, 7}, {32, 33}, {0, 4}})
            for (std::int64_t B : {0, 1, 2, 9})
                for (std::int64_t pad : {0, 3}) {
                    const int bpp = bytes_per_pixel(f);
                    const std::int64_t stride = w * bpp + pad;
                    const std::int64_t batch_stride = pad ? stride * h + 5 : 0;  // 0: packed
                    const std::int64_t step = batch_stride ? batch_stride : stride * h;
                    std::vector<TestImage> imgs;
                    std::vector<std::uint8_t> buf(std::size_t(std::max<std::int64_t>(step * B, 1)), 0x5A);
                    for (std::int64_t b = 0; b < B; ++b) {
                        imgs.push_back(make_image(w, h, f, random_values(w, h, 1 + b % 4 + 1, 0.2, seed++), pad));
                        std::copy(imgs.back().storage.begin(), imgs.back().storage.end(), buf.begin() + b * step);
                    }
                    const BatchView view{buf.data(), B, w, h, pad ? stride : 0, batch_stride, f};
                    for (int conn : {4, 8})
                        for (bool bg : {false, true}) {
                            const Options o = batch_options(f, conn, bg, 1 + int(B + conn) % 3);
                            std::vector<std::uint32_t> out(std::size_t(B * w * h) + 1, 0xA5A5A5A5u);
                            const BatchResult r = label_batch(view, out.data(), o);
                            ASSERT_EQ(r.counts.size(), std::size_t(B));
                            EXPECT_EQ(r.backend, Backend::Cpu);
                            EXPECT_EQ(out.back(), 0xA5A5A5A5u) << "wrote past the output";
                            for (std::int64_t b = 0; b < B; ++b)
                                expect_image(imgs[std::size_t(b)], o, out.data() + b * w * h, r.counts[std::size_t(b)],
                                             std::string(format_name(f)) + " " + std::to_string(w) + "x" +
                                                 std::to_string(h) + " B " + std::to_string(B) + " image " +
                                                 std::to_string(b) + " conn " + std::to_string(conn) +
                                                 (bg ? " bg" : "") + " pad " + std::to_string(pad));
                            if (HasFailure()) return;
                        }
                }
}

TEST(Batch, RaggedEqualsPerImageLabel) {
    std::mt19937 rng(11);
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGB8, PixelFormat::U32, PixelFormat::Binary8})
        for (std::size_t B : {0, 1, 3, 24}) {
            std::vector<TestImage> imgs;
            RaggedBatchView view;
            view.format = f;
            const bool with_strides = B % 2 == 1;
            for (std::size_t b = 0; b < B; ++b) {
                const std::int64_t w = b % 7 == 3 ? 0 : 1 + std::int64_t(rng() % 40), h = 1 + std::int64_t(rng() % 30);
                const std::int64_t pad = with_strides ? std::int64_t(rng() % 4) : 0;
                imgs.push_back(make_image(w, h, f, random_values(w, h, 3, 0.25, std::uint32_t(rng())), pad));
                view.widths.push_back(w);
                view.heights.push_back(h);
                if (with_strides) view.strides.push_back(pad ? imgs.back().stride : 0);
            }
            // The images lie in the buffer in a shuffled order, with gaps.
            std::vector<std::size_t> order(B);
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), rng);
            std::vector<std::uint8_t> buf;
            view.offsets.assign(B, 0);
            for (std::size_t b : order) {
                buf.resize(buf.size() + 3, 0x77);
                view.offsets[b] = std::int64_t(buf.size());
                buf.insert(buf.end(), imgs[b].storage.begin(), imgs[b].storage.end());
            }
            view.data = buf.empty() ? nullptr : buf.data();
            const std::vector<std::uint64_t> offsets = ragged_label_offsets(view);
            ASSERT_EQ(offsets.size(), B + 1);
            std::uint64_t total = 0;
            for (std::size_t b = 0; b < B; ++b) {
                ASSERT_EQ(offsets[b], total);
                total += std::uint64_t(imgs[b].width * imgs[b].height);
            }
            ASSERT_EQ(offsets[B], total);
            for (int conn : {4, 8})
                for (int threads : {1, 2, 5}) {
                    const Options o = batch_options(f, conn, true, threads);
                    std::vector<std::uint32_t> out(total + 1, 0xA5A5A5A5u);
                    const BatchResult r = label_batch(view, out.data(), o);
                    ASSERT_EQ(r.counts.size(), B);
                    EXPECT_EQ(out.back(), 0xA5A5A5A5u) << "wrote past the output";
                    for (std::size_t b = 0; b < B; ++b)
                        expect_image(imgs[b], o, out.data() + offsets[b], r.counts[b],
                                     std::string(format_name(f)) + " ragged B " + std::to_string(B) + " image " +
                                         std::to_string(b) + " conn " + std::to_string(conn) + " threads " +
                                         std::to_string(threads));
                    if (HasFailure()) return;
                }
        }
}

template <typename Fn>
void expect_error(Fn&& fn, const std::string& fragment) {
    try {
        fn();
        ADD_FAILURE() << "no error; expected one mentioning '" << fragment << "'";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(Batch, Errors) {
    std::vector<std::uint8_t> px(4 * 10 * 10, 1);
    std::vector<std::uint32_t> out(4 * 100);
    const Options o;
    BatchView b{px.data(), 4, 10, 10, 0, 0, PixelFormat::Gray8};
    auto with = [&](auto change) {
        BatchView v = b;
        change(v);
        return v;
    };
    expect_error([&] { label_batch(with([](BatchView& v) { v.count = -1; }), out.data(), o); }, "batch count");
    expect_error([&] { label_batch(with([](BatchView& v) { v.batch_stride = -100; }), out.data(), o); }, "batch stride");
    expect_error([&] { label_batch(with([](BatchView& v) { v.batch_stride = 99; }), out.data(), o); }, "shorter than one image");
    expect_error([&] { label_batch(with([](BatchView& v) { v.data = nullptr; }), out.data(), o); }, "null");
    expect_error([&] { label_batch(b, nullptr, o); }, "null");
    expect_error([&] { label_batch(with([](BatchView& v) { v.width = -2; }), out.data(), o); }, "negative");
    expect_error([&] { label_batch(with([](BatchView& v) { v.stride = 4; }), out.data(), o); }, "stride");
    expect_error([&] { label_batch(with([](BatchView& v) { v.format = PixelFormat(17); }), out.data(), o); }, "format");
    Options bad;
    bad.connectivity = 5;
    expect_error([&] { label_batch(b, out.data(), bad); }, "connectivity");
    bad = Options{};
    bad.background = std::vector<std::uint64_t>{1, 1, 1};
    expect_error([&] { label_batch(with([](BatchView& v) { v.count = 0; }), out.data(), bad); }, "background");
    // A stride of 1 byte between images of 100 pixels: images would overlap.
    EXPECT_NO_THROW(label_batch(with([](BatchView& v) { v.count = 1; v.batch_stride = 1; }), out.data(), o));

    RaggedBatchView r;
    r.data = px.data();
    r.format = PixelFormat::Gray8;
    r.offsets = {0, 100, 200};
    r.widths = {10, 10, 10};
    r.heights = {10, 10, 10};
    EXPECT_EQ(label_batch(r, out.data(), o).counts, (std::vector<std::uint32_t>{1, 1, 1}));
    auto rwith = [&](auto change) {
        RaggedBatchView v = r;
        change(v);
        return v;
    };
    expect_error([&] { label_batch(rwith([](RaggedBatchView& v) { v.widths.pop_back(); }), out.data(), o); }, "widths");
    expect_error([&] { label_batch(rwith([](RaggedBatchView& v) { v.strides = {0}; }), out.data(), o); }, "strides");
    expect_error([&] { label_batch(rwith([](RaggedBatchView& v) { v.offsets[1] = -5; }), out.data(), o); },
                 "batch image 1: negative offset");
    expect_error([&] { label_batch(rwith([](RaggedBatchView& v) { v.heights[2] = -1; }), out.data(), o); },
                 "batch image 2: image size must not be negative");
    expect_error([&] { label_batch(rwith([](RaggedBatchView& v) { v.widths[0] = 70000; v.heights[0] = 70000; }),
                                   out.data(), o); },
                 "batch image 0: ");
    expect_error([&] { label_batch(rwith([](RaggedBatchView& v) { v.data = nullptr; }), out.data(), o); }, "null");

    // The CUDA backend: an Error without a device (or without a CUDA build); Auto labels on the CPU.
    if (!cuda_available()) {
        Options cu;
        cu.backend = Backend::Cuda;
        EXPECT_THROW(label_batch(b, out.data(), cu), Error);
        EXPECT_THROW(label_batch(r, out.data(), cu), Error);
        Options au;
        au.backend = Backend::Auto;
        EXPECT_EQ(label_batch(b, out.data(), au).backend, Backend::Cpu);
    }
}

}  // namespace
}  // namespace cclabel::test
