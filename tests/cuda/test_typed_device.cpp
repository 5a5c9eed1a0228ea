// The typed formats (I8 to F64) on the device API (cuda.hpp, cuda_stats.hpp): pictures of each
// type's awkward values (tests/support/typed_pictures.hpp) copied to the GPU, labelled there by
// label_device, label_batch_device and label_regions_device, and compared with the flood fill on
// the typed values (labels and counts) and with the host API's regions() (the rows' values):
// both connectivities, no background, a background in the picture and one absent from it, padded
// rows, a batch with a gap between images, and the size query's independence from the data.
// Skipped without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cclabel/batch.hpp"
#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "cclabel/cuda_stats.hpp"
#include "cuda/dev_mem.hpp"
#include "cuda/gpu_test.hpp"
#include "support/each_typed.hpp"
#include "support/typed_pictures.hpp"

namespace cclabel::test {
namespace {

constexpr std::uint32_t kPoison = 0xABABABABu;

/// @p pics (each w × h) laid out on the host with rows @p stride bytes apart and images
/// @p batch_stride bytes apart; padding bytes 0xA5.
template <typename T>
std::vector<std::uint8_t> lay_out(const std::vector<std::vector<T>>& pics, std::int64_t w, std::int64_t h,
                                  std::int64_t stride, std::int64_t batch_stride) {
    std::vector<std::uint8_t> bytes(std::size_t(std::max<std::int64_t>(1, batch_stride * std::int64_t(pics.size()))), 0xA5);
    for (std::size_t b = 0; b < pics.size(); ++b)
        for (std::int64_t y = 0; y < h; ++y)
            std::memcpy(bytes.data() + std::int64_t(b) * batch_stride + y * stride, pics[b].data() + y * w,
                        std::size_t(w) * sizeof(T));
    return bytes;
}

/// The backgrounds each test tries: none, a value of the picture, and a value absent from it.
template <typename T>
std::vector<std::optional<T>> backgrounds(const std::vector<T>& pal) {
    std::vector<std::optional<T>> out{std::nullopt, pal[1]};
    if constexpr (std::is_same_v<T, Half>) out.push_back(Half{0x4100});  // 2.5
    else if constexpr (std::is_floating_point_v<T>) out.push_back(T(2.5));
    else out.push_back(T(42));
    return out;
}

template <typename T>
Options options_for(int conn, const std::optional<T>& bg) {
    Options o;
    o.connectivity = conn;
    if (bg) o.background_value = scalar_of(*bg);
    return o;
}

/// What a case is, for the failure messages (appends: GCC 12 warns falsely on "..." + std::string).
std::string describe(PixelFormat f, int conn, bool bg, const char* what, std::int64_t a = -1, std::int64_t b = -1,
                     std::int64_t c = -1) {
    std::string s(format_name(f));
    s += " conn ";
    s += std::to_string(conn);
    if (bg) s += " with background";
    s += ' ';
    s += what;
    for (std::int64_t v : {a, b, c})
        if (v >= 0) s += ' ', s += std::to_string(v);
    return s;
}

/// @p B pictures (rows @p pad bytes longer than the pixels, images @p gap bytes apart) through
/// label_batch_device, or with @p one (B = 1) label_device, against the flood fill per image;
/// labels and counts poisoned first, and checked for writes past their end.
template <typename T>
void check_device(bool one, std::int64_t B, std::int64_t w, std::int64_t h, std::int64_t pad, std::int64_t gap,
                  std::uint32_t seed) {
    const std::vector<T> pal = palette<T>();
    std::vector<std::vector<T>> pics;
    for (std::int64_t b = 0; b < B; ++b) pics.push_back(picture(pal, w, h, seed + std::uint32_t(b)));
    const std::int64_t stride = w * std::int64_t(sizeof(T)) + pad, batch_stride = stride * h + gap;
    const std::vector<std::uint8_t> host = lay_out(pics, w, h, stride, batch_stride);
    const std::size_t P = std::size_t(w * h);
    DevMem d_px(host.size()), d_lab(std::size_t(B) * P * 4 + 4), d_cnt(std::size_t(B) * 4 + 4);
    ASSERT_EQ(cudaMemcpy(d_px.p, host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);
    const BatchView dv{d_px.p, B, w, h, stride, batch_stride, kFormat<T>};
    auto run = [&](void* ws, std::size_t& bytes, std::uint32_t* labels, std::uint32_t* counts, const Options& o) {
        if (one) cuda::label_device(ws, bytes, dv.image(0), labels, counts, o);
        else cuda::label_batch_device(ws, bytes, dv, labels, counts, o);
    };
    for (const std::optional<T>& bg : backgrounds(pal))
        for (int conn : {4, 8}) {
            const std::string what =
                describe(kFormat<T>, conn, bg.has_value(), one ? "label_device w h pad" : "batch B pad gap",
                         one ? w : B, one ? h : pad, one ? pad : gap);
            const Options o = options_for(conn, bg);
            std::size_t ws_bytes = 0;
            run(nullptr, ws_bytes, nullptr, nullptr, o);
            DevMem d_ws(ws_bytes);
            ASSERT_EQ(cudaMemset(d_lab.p, 0xAB, std::size_t(B) * P * 4 + 4), cudaSuccess);
            ASSERT_EQ(cudaMemset(d_cnt.p, 0xAB, std::size_t(B) * 4 + 4), cudaSuccess);
            run(d_ws.p, ws_bytes, d_lab.as<std::uint32_t>(), d_cnt.as<std::uint32_t>(), o);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
            std::vector<std::uint32_t> got(std::size_t(B) * P + 1), cnt(std::size_t(B) + 1);
            ASSERT_EQ(cudaMemcpy(got.data(), d_lab.p, got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(cnt.data(), d_cnt.p, cnt.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
            ASSERT_EQ(got.back(), kPoison) << what << ": wrote past the labels";
            ASSERT_EQ(cnt.back(), kPoison) << what << ": wrote past the counts";
            for (std::int64_t b = 0; b < B; ++b) {
                std::uint32_t n = 0;
                const std::vector<std::uint32_t> want = flood(pics[std::size_t(b)], w, h, conn, bg, &n);
                EXPECT_EQ(cnt[std::size_t(b)], n) << what << " image " << b;
                EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin() + std::ptrdiff_t(std::size_t(b) * P)))
                    << what << " image " << b;
            }
        }
}

template <typename T>
void check_all_sizes() {
    check_device<T>(true, 1, 37, 23, 0, 0, 1);
    check_device<T>(true, 1, 37, 23, 5, 0, 2);  // padded rows, and a stride that is no multiple of the pixel
    check_device<T>(true, 1, 1, 1, 0, 0, 3);
    check_device<T>(true, 1, 130, 1, 0, 0, 4);
    check_device<T>(true, 1, 1, 70, 3, 0, 5);
    check_device<T>(true, 1, 257, 129, 64, 0, 6);
}

TEST(TypedDevice, LabelDeviceMatchesTheFloodFill) {
    REQUIRE_GPU();
    each_typed([]<typename T>() { check_all_sizes<T>(); });
}

template <typename T>
void check_batches() {
    check_device<T>(false, 5, 33, 17, 0, 0, 100);  // packed: one stack
    check_device<T>(false, 3, 20, 9, 3, 11, 200);  // padded rows and a gap between images
    check_device<T>(false, 1, 64, 64, 0, 0, 300);
}

TEST(TypedDevice, BatchMatchesTheFloodFillPerImage) {
    REQUIRE_GPU();
    each_typed([]<typename T>() { check_batches<T>(); });
}

/// label_regions_device against the host API's label() and regions() on the same picture.
template <typename T>
void check_regions(std::int64_t w, std::int64_t h) {
    const std::vector<T> pal = palette<T>();
    const std::vector<T> pic = picture(pal, w, h, 7);
    const std::size_t P = std::size_t(w * h);
    DevMem d_px(P * sizeof(T)), d_lab(P * 4), d_cnt(4), d_rows((P + 1) * sizeof(RegionStats));
    ASSERT_EQ(cudaMemcpy(d_px.p, pic.data(), P * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    const ImageView dv{d_px.p, w, h, 0, kFormat<T>};
    for (const std::optional<T>& bg : backgrounds(pal))
        for (int conn : {4, 8}) {
            const std::string what = describe(kFormat<T>, conn, bg.has_value(), "regions");
            Options o = options_for(conn, bg);
            std::size_t ws_bytes = 0;
            cuda::label_regions_device(nullptr, ws_bytes, dv, nullptr, nullptr, P + 1, nullptr, o);
            DevMem d_ws(ws_bytes);
            cuda::label_regions_device(d_ws.p, ws_bytes, dv, d_lab.as<std::uint32_t>(), d_cnt.as<std::uint32_t>(),
                                       P + 1, d_rows.as<RegionStats>(), o);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
            std::uint32_t n = 0;
            ASSERT_EQ(cudaMemcpy(&n, d_cnt.p, 4, cudaMemcpyDeviceToHost), cudaSuccess);
            std::vector<RegionStats> got(std::size_t(n) + 1);
            ASSERT_EQ(cudaMemcpy(got.data(), d_rows.p, got.size() * sizeof(RegionStats), cudaMemcpyDeviceToHost),
                      cudaSuccess);
            o.backend = Backend::Cpu;
            std::vector<std::uint32_t> labels(P);
            ASSERT_EQ(label(view_of(pic, w, h), labels.data(), o).count, n) << what;
            const std::vector<RegionStats> want = regions(view_of(pic, w, h), labels.data(), o);
            ASSERT_EQ(got.size(), want.size()) << what;
            for (std::size_t l = 0; l < want.size(); ++l) {
                EXPECT_EQ(got[l].area, want[l].area) << what << " row " << l;
                EXPECT_EQ(got[l].x, want[l].x) << what << " row " << l;
                EXPECT_EQ(got[l].y, want[l].y) << what << " row " << l;
                EXPECT_EQ(got[l].width, want[l].width) << what << " row " << l;
                EXPECT_EQ(got[l].height, want[l].height) << what << " row " << l;
                EXPECT_EQ(got[l].perimeter, want[l].perimeter) << what << " row " << l;
                EXPECT_EQ(got[l].value, want[l].value) << what << " row " << l;
            }
        }
}

TEST(TypedDevice, RegionsReportTheTypedValues) {
    REQUIRE_GPU();
    each_typed([]<typename T>() { check_regions<T>(41, 19); });
}

TEST(TypedDevice, SizeQueryDependsOnTheSizesOnly) {
    REQUIRE_GPU();
    // Different pictures, pointers and backgrounds of one size ask for the same workspace.
    for (PixelFormat f : {PixelFormat::I64, PixelFormat::U64, PixelFormat::F64, PixelFormat::F16, PixelFormat::F32,
                          PixelFormat::I8}) {
        std::size_t a = 0, b = 0, c = 0;
        const std::int64_t bpp = bytes_per_pixel(f);
        DevMem d1(std::size_t(300 * 200 * bpp)), d2(std::size_t(300 * 200 * bpp));
        cuda::label_device(nullptr, a, ImageView{d1.p, 300, 200, 0, f}, nullptr, nullptr, {});
        Options o;
        o.background_value = 0;
        cuda::label_device(nullptr, b, ImageView{d2.p, 300, 200, 0, f}, nullptr, nullptr, o);
        cuda::label_device(nullptr, c, ImageView{d2.p, 300, 200, 0, f}, nullptr, nullptr, {});
        EXPECT_EQ(a, b) << format_name(f);
        EXPECT_EQ(a, c) << format_name(f);
        EXPECT_GT(a, 0u) << format_name(f);
    }
}

TEST(TypedDevice, BackToBackCallsOnOneStreamWithoutSynchronising) {
    REQUIRE_GPU();
    // Two F64 pictures, one workspace, one stream, no wait between the calls.
    const std::vector<double> pal = palette<double>();
    const std::int64_t w = 97, h = 61;
    const std::size_t P = std::size_t(w * h);
    const std::vector<double> p1 = picture(pal, w, h, 11), p2 = picture(pal, w, h, 12);
    DevMem d1(P * 8), d2(P * 8), l1(P * 4), l2(P * 4), cnt(8);
    ASSERT_EQ(cudaMemcpy(d1.p, p1.data(), P * 8, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d2.p, p2.data(), P * 8, cudaMemcpyHostToDevice), cudaSuccess);
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    std::size_t ws_bytes = 0;
    cuda::label_device(nullptr, ws_bytes, ImageView{d1.p, w, h, 0, PixelFormat::F64}, nullptr, nullptr, {}, s);
    DevMem ws(ws_bytes);
    cuda::label_device(ws.p, ws_bytes, ImageView{d1.p, w, h, 0, PixelFormat::F64}, l1.as<std::uint32_t>(),
                       cnt.as<std::uint32_t>(), {}, s);
    cuda::label_device(ws.p, ws_bytes, ImageView{d2.p, w, h, 0, PixelFormat::F64}, l2.as<std::uint32_t>(),
                       cnt.as<std::uint32_t>() + 1, {}, s);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    cudaStreamDestroy(s);
    std::vector<std::uint32_t> g1(P), g2(P), n(2);
    ASSERT_EQ(cudaMemcpy(g1.data(), l1.p, P * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(g2.data(), l2.p, P * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(n.data(), cnt.p, 8, cudaMemcpyDeviceToHost), cudaSuccess);
    std::uint32_t n1 = 0, n2 = 0;
    EXPECT_EQ(g1, flood(p1, w, h, 8, std::optional<double>{}, &n1));
    EXPECT_EQ(g2, flood(p2, w, h, 8, std::optional<double>{}, &n2));
    EXPECT_EQ(n[0], n1);
    EXPECT_EQ(n[1], n2);
}

}  // namespace
}  // namespace cclabel::test
