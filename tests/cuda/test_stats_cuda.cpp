// GPU region statistics and filters against the CPU ones, exactly (centroids bit for bit): random
// and adversarial pictures in every format, both connectivities, label images not from the
// labeller, one huge region and millions of tiny ones; the device API on a stream with the
// labeller's count (no host synchronisation), with a null count, with a row cap, and fused with
// labelling; the filters on host and device. Skipped without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <string>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "cclabel/cuda_stats.hpp"
#include "cclabel/stats.hpp"
#include "support/adversarial.hpp"
#include "support/test_image.hpp"
#include "cuda/gpu_test.hpp"

namespace cclabel::test {
namespace {

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                    PixelFormat::U32,     PixelFormat::RGB8,  PixelFormat::RGBA8};

using LabelImage = std::vector<std::uint32_t>;

void ok(cudaError_t e, const char* what) { ASSERT_EQ(e, cudaSuccess) << what << ": " << cudaGetErrorString(e); }

struct Dev {
    void* p = nullptr;
    explicit Dev(std::size_t bytes) { EXPECT_EQ(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)), cudaSuccess); }
    ~Dev() { cudaFree(p); }
    template <typename T>
    T* as() const {
        return static_cast<T*>(p);
    }
};

void expect_same_rows(const std::vector<RegionStats>& got, const std::vector<RegionStats>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t l = 0; l < want.size(); ++l) {
        const std::string at = what + " label " + std::to_string(l);
        ASSERT_EQ(got[l].area, want[l].area) << at;
        ASSERT_EQ(got[l].perimeter, want[l].perimeter) << at;
        ASSERT_EQ(got[l].x, want[l].x) << at;
        ASSERT_EQ(got[l].y, want[l].y) << at;
        ASSERT_EQ(got[l].width, want[l].width) << at;
        ASSERT_EQ(got[l].height, want[l].height) << at;
        ASSERT_EQ(0, std::memcmp(&got[l].cx, &want[l].cx, 8)) << at << ": cx " << got[l].cx << " vs " << want[l].cx;
        ASSERT_EQ(0, std::memcmp(&got[l].cy, &want[l].cy, 8)) << at << ": cy " << got[l].cy << " vs " << want[l].cy;
        ASSERT_EQ(got[l].value, want[l].value) << at;
    }
}

std::vector<RegionStats> rows_on(Backend b, const ImageView& view, const LabelImage& lab, int conn) {
    Options o;
    o.connectivity = conn;
    o.backend = b;
    return regions(view, lab.data(), o);
}

void expect_backends_agree(const TestImage& img, const LabelImage& lab, const std::string& what) {
    for (int conn : {4, 8}) {
        std::vector<RegionStats> gpu;
        try {
            gpu = rows_on(Backend::Cuda, img.view(), lab, conn);
        } catch (const std::exception& e) {
            FAIL() << what << ": " << e.what();
        }
        expect_same_rows(gpu, rows_on(Backend::Cpu, img.view(), lab, conn), what + " conn " + std::to_string(conn));
    }
}

void expect_filters_agree(const LabelImage& lab, std::int64_t w, std::int64_t h, const std::string& what) {
    for (std::uint64_t min_area : {0ull, 2ull, 5ull, 1000ull}) {
        LabelImage a = lab, b = lab;
        const std::uint32_t ma = remove_small(a.data(), w, h, min_area, Backend::Cpu);
        const std::uint32_t mb = remove_small(b.data(), w, h, min_area, Backend::Cuda);
        ASSERT_EQ(mb, ma) << what << " remove_small " << min_area;
        ASSERT_EQ(b, a) << what << " remove_small " << min_area;
    }
    for (std::uint32_t k : {0u, 1u, 3u, 100u, 0xFFFFFFFFu}) {
        LabelImage a = lab, b = lab;
        const std::uint32_t ma = keep_largest(a.data(), w, h, k, Backend::Cpu);
        const std::uint32_t mb = keep_largest(b.data(), w, h, k, Backend::Cuda);
        ASSERT_EQ(mb, ma) << what << " keep_largest " << k;
        ASSERT_EQ(b, a) << what << " keep_largest " << k;
    }
}

TEST(CudaStats, RandomImagesEveryFormat) {
    REQUIRE_GPU();
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1}, {1, 300}, {300, 1}, {9, 40}, {65, 64},
                                                           {2049, 5}, {513, 517}};
    std::uint32_t seed = 1;
    for (PixelFormat f : kFormats)
        for (auto [w, h] : sizes)
            for (std::uint64_t pal : {2ull, 6ull, 0ull}) {
                const auto img = make_image(w, h, f, random_values(w, h, pal, 0.2, seed), seed % 2 ? 3 : 0, seed % 3);
                Options o;
                o.connectivity = seed % 2 ? 4 : 8;
                o.backend = Backend::Cpu;
                if (seed % 3 == 0 && f != PixelFormat::Binary8) o.background = background_channels(f, 0);
                const Labels lab = label(img.view(), o);
                const std::string what = std::string(format_name(f)) + " " + std::to_string(w) + "x" +
                                         std::to_string(h) + " pal " + std::to_string(pal);
                expect_backends_agree(img, lab.data, what);
                if (f == PixelFormat::Gray8) expect_filters_agree(lab.data, w, h, what);
                ++seed;
            }
}

TEST(CudaStats, AdversarialImages) {
    REQUIRE_GPU();
    for (const Case& c : adversarial_cases()) {
        const auto img = make_image(c.width, c.height, PixelFormat::U32, c.v);
        for (int conn : {4, 8}) {
            Options o;
            o.connectivity = conn;
            o.backend = Backend::Cpu;
            const Labels lab = label(img.view(), o);
            expect_backends_agree(img, lab.data, c.name);
            if (conn == 8) expect_filters_agree(lab.data, c.width, c.height, c.name);
        }
    }
}

TEST(CudaStats, OneHugeRegionAndMillionsOfTinyOnes) {
    REQUIRE_GPU();
    const std::int64_t w = 4099, h = 2500;  // 10 Mpx
    {
        const auto img = make_image(w, h, PixelFormat::Gray8, std::vector<std::uint64_t>(std::size_t(w * h), 9));
        const LabelImage lab(std::size_t(w * h), 1);
        expect_backends_agree(img, lab, "one region");
        expect_filters_agree(lab, w, h, "one region");
    }
    {
        // Checkerboard, 4-connected: every pixel a region (10 million labels, a full table in
        // every block).
        std::vector<std::uint64_t> v(std::size_t(w * h));
        for (std::int64_t i = 0; i < w * h; ++i) v[std::size_t(i)] = std::uint64_t(((i % w) + (i / w)) % 2);
        // Gray8, not Binary8: Binary8's zeros would be background, half the regions.
        const auto img = make_image(w, h, PixelFormat::Gray8, v);
        Options four;
        four.connectivity = 4;
        four.backend = Backend::Cpu;
        const Labels lab = label(img.view(), four);
        ASSERT_EQ(lab.count, std::uint32_t(w * h));
        expect_backends_agree(img, lab.data, "checkerboard");
        expect_filters_agree(lab.data, w, h, "checkerboard");
    }
}

TEST(CudaStats, SeveralTilesABlock) {
    REQUIRE_GPU();
    // Past 4096 · 2048 · 2 pixels a block takes several tiles and keeps its table across them:
    // a background covering most of the picture, blobs and lines over it (labels spread through
    // the tiles, tables flushed between tiles), at two widths (rows ending inside tiles or not).
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{6001, 5003}, {4096, 8200}}) {
        std::vector<std::uint64_t> v(std::size_t(w * h), 0);
        std::mt19937 rng{std::uint32_t(w)};
        for (int blob = 0; blob < 20000; ++blob) {
            const std::int64_t cx = std::int64_t(rng() % std::uint64_t(w)), cy = std::int64_t(rng() % std::uint64_t(h));
            const std::int64_t r = 1 + std::int64_t(rng() % 12), value = 1 + std::int64_t(rng() % 3);
            for (std::int64_t y = std::max<std::int64_t>(0, cy - r); y < std::min(h, cy + r + 1); ++y)
                for (std::int64_t x = std::max<std::int64_t>(0, cx - r); x < std::min(w, cx + r + 1); ++x)
                    if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) v[std::size_t(y * w + x)] = std::uint64_t(value);
        }
        for (std::int64_t y = 0; y < h; y += 97)
            for (std::int64_t x = 0; x < w; ++x) v[std::size_t(y * w + x)] = 4;  // full-width lines
        const auto img = make_image(w, h, PixelFormat::Gray8, v);
        Options o;
        o.backend = Backend::Cpu;
        const Labels lab = label(img.view(), o);
        expect_backends_agree(img, lab.data, "tiles " + std::to_string(w) + "x" + std::to_string(h));
    }
}

TEST(CudaStats, LabelImagesNotFromTheLabeller) {
    REQUIRE_GPU();
    std::mt19937 rng(5);
    for (int round = 0; round < 10; ++round) {
        const std::int64_t w = 1 + rng() % 3000, h = 1 + rng() % 300;
        const auto img = make_image(w, h, PixelFormat::RGBA8, random_values(w, h, 5, 0.0, rng()));
        LabelImage lab(std::size_t(w * h));
        const std::uint32_t top = std::uint32_t(std::min<std::int64_t>(w * h, 1 + rng() % 5000));
        for (auto& l : lab) l = rng() % 4 == 0 ? 0 : std::uint32_t(rng() % (top + 1));
        lab[rng() % lab.size()] = std::uint32_t(w * h);  // the largest label a picture of this size allows
        const std::string what = "arbitrary " + std::to_string(round);
        expect_backends_agree(img, lab, what);
        expect_filters_agree(lab, w, h, what);
    }
    // A label above the pixel count is the CPU's error on the GPU too.
    std::vector<std::uint8_t> px(12, 1);
    LabelImage bad(12, 1);
    bad[3] = 13;
    Options o;
    o.backend = Backend::Cuda;
    EXPECT_THROW(regions(make_view(px.data(), 4, 3, PixelFormat::Gray8), bad.data(), o), Error);
    EXPECT_THROW(remove_small(bad.data(), 4, 3, 1, Backend::Cuda), Error);
}

TEST(CudaStats, FusedHostCallEqualsTheCpu) {
    REQUIRE_GPU();
    std::uint32_t seed = 70;
    for (PixelFormat f : kFormats)
        for (int conn : {4, 8}) {
            const std::int64_t w = 1111, h = 333;
            const auto img = make_image(w, h, f, random_values(w, h, 3, 0.3, seed++), 2);
            Options o;
            o.connectivity = conn;
            if (f != PixelFormat::Binary8) o.background = background_channels(f, 0);
            o.backend = Backend::Cpu;
            LabelImage want(std::size_t(w * h)), got(std::size_t(w * h));
            std::vector<RegionStats> sw, sg;
            const LabelResult rc = label(img.view(), want.data(), o, sw);
            o.backend = Backend::Cuda;
            const LabelResult rg = label(img.view(), got.data(), o, sg);
            ASSERT_EQ(rg.backend, Backend::Cuda);
            ASSERT_EQ(rg.count, rc.count);
            ASSERT_EQ(got, want);
            expect_same_rows(sg, sw, std::string("fused ") + std::string(format_name(f)));
        }
}

TEST(CudaStats, DeviceApiOnAStreamWithCountCapAndNullCount) {
    REQUIRE_GPU();
    const std::int64_t w = 777, h = 555;
    const auto img = make_image(w, h, PixelFormat::RGB8, random_values(w, h, 4, 0.1, 91), 5);
    Options o;
    o.backend = Backend::Cpu;
    const Labels lab = label(img.view(), o);
    const auto want = regions(img.view(), lab.data.data(), o);
    const std::size_t n1 = std::size_t(lab.count) + 1;

    cudaStream_t s;
    ok(cudaStreamCreate(&s), "cudaStreamCreate");
    const ImageView hv = img.view();
    Dev d_img(std::size_t(hv.row_bytes() * h)), d_lab(std::size_t(w * h) * 4), d_count(4);
    ok(cudaMemcpy(d_img.p, hv.data, std::size_t(hv.row_bytes() * h), cudaMemcpyHostToDevice), "upload");
    const ImageView dv{d_img.p, w, h, hv.row_bytes(), hv.format};
    const std::size_t cap = n1 + 10;  // spare rows must stay untouched
    Dev d_rows(cap * sizeof(RegionStats));
    auto fetch = [&](std::size_t rows) {
        std::vector<RegionStats> out(cap);
        EXPECT_EQ(cudaMemcpy(static_cast<void*>(out.data()), d_rows.p, cap * sizeof(RegionStats), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        for (std::size_t l = rows; l < cap; ++l) {
            const auto* b = reinterpret_cast<const unsigned char*>(&out[l]);
            for (std::size_t k = 0; k < sizeof(RegionStats); ++k) EXPECT_EQ(b[k], 0xEE) << "row " << l << " written";
        }
        out.resize(rows);
        return out;
    };

    // Fused: labels, count and rows from one call, nothing waited for in between.
    std::size_t bytes = 0;
    cuda::label_regions_device(nullptr, bytes, dv, nullptr, nullptr, cap, nullptr, o, s);
    Dev ws(bytes);
    ok(cudaMemset(d_rows.p, 0xEE, cap * sizeof(RegionStats)), "memset");
    cuda::label_regions_device(ws.p, bytes, dv, d_lab.as<std::uint32_t>(), d_count.as<std::uint32_t>(), cap,
                               d_rows.as<RegionStats>(), o, s);
    ok(cudaStreamSynchronize(s), "sync");
    expect_same_rows(fetch(n1), want, "label_regions_device");
    LabelImage got(std::size_t(w * h));
    ok(cudaMemcpy(got.data(), d_lab.p, got.size() * 4, cudaMemcpyDeviceToHost), "download");
    ASSERT_EQ(got, lab.data);

    // regions_device with a null count (largest label found on the GPU), then a cap below N + 1.
    std::size_t sbytes = 0;
    cuda::regions_device(nullptr, sbytes, dv, nullptr, nullptr, cap, nullptr, o, s);
    Dev sws(sbytes);
    ok(cudaMemset(d_rows.p, 0xEE, cap * sizeof(RegionStats)), "memset");
    cuda::regions_device(sws.p, sbytes, dv, d_lab.as<std::uint32_t>(), nullptr, cap, d_rows.as<RegionStats>(), o, s);
    ok(cudaStreamSynchronize(s), "sync");
    expect_same_rows(fetch(n1), want, "regions_device null count");
    ok(cudaMemset(d_rows.p, 0xEE, cap * sizeof(RegionStats)), "memset");
    const std::size_t small = n1 / 2;
    cuda::regions_device(sws.p, sbytes, dv, d_lab.as<std::uint32_t>(), d_count.as<std::uint32_t>(), small,
                         d_rows.as<RegionStats>(), o, s);
    ok(cudaStreamSynchronize(s), "sync");
    {
        std::vector<RegionStats> out(small);
        ok(cudaMemcpy(static_cast<void*>(out.data()), d_rows.p, small * sizeof(RegionStats), cudaMemcpyDeviceToHost),
           "download");
        expect_same_rows(out, std::vector<RegionStats>(want.begin(), want.begin() + std::ptrdiff_t(small)), "cap");
        std::vector<unsigned char> next(sizeof(RegionStats));
        ok(cudaMemcpy(next.data(), d_rows.as<RegionStats>() + small, next.size(), cudaMemcpyDeviceToHost), "download");
        for (unsigned char c : next) EXPECT_EQ(c, 0xEE) << "row past the capacity written";
    }

    // Filters on the device, with the labeller's count.
    for (bool largest : {false, true}) {
        LabelImage cpu = lab.data;
        const std::uint32_t m = largest ? keep_largest(cpu.data(), w, h, 7, Backend::Cpu)
                                        : remove_small(cpu.data(), w, h, 4, Backend::Cpu);
        ok(cudaMemcpy(d_lab.p, lab.data.data(), lab.data.size() * 4, cudaMemcpyHostToDevice), "upload");
        std::size_t fbytes = 0;
        Dev d_m(4);
        auto run = [&](void* p) {
            if (largest)
                cuda::keep_largest_device(p, fbytes, d_lab.as<std::uint32_t>(), w, h, d_count.as<std::uint32_t>(), n1,
                                          7, d_m.as<std::uint32_t>(), s);
            else
                cuda::remove_small_device(p, fbytes, d_lab.as<std::uint32_t>(), w, h, d_count.as<std::uint32_t>(), n1,
                                          4, d_m.as<std::uint32_t>(), s);
        };
        run(nullptr);
        Dev fws(fbytes);
        run(fws.p);
        std::uint32_t gm = 0;
        ok(cudaMemcpyAsync(&gm, d_m.p, 4, cudaMemcpyDeviceToHost, s), "count");
        ok(cudaMemcpyAsync(got.data(), d_lab.p, got.size() * 4, cudaMemcpyDeviceToHost, s), "labels");
        ok(cudaStreamSynchronize(s), "sync");
        EXPECT_EQ(gm, m) << (largest ? "keep_largest_device" : "remove_small_device");
        EXPECT_EQ(got, cpu) << (largest ? "keep_largest_device" : "remove_small_device");
    }

    // Errors: a too-small workspace, capacity 0, null outputs.
    std::size_t tiny = 8;
    EXPECT_THROW(cuda::regions_device(sws.p, tiny, dv, d_lab.as<std::uint32_t>(), nullptr, cap,
                                      d_rows.as<RegionStats>(), o, s),
                 Error);
    EXPECT_THROW(cuda::regions_device(sws.p, sbytes, dv, d_lab.as<std::uint32_t>(), nullptr, 0,
                                      d_rows.as<RegionStats>(), o, s),
                 Error);
    EXPECT_THROW(cuda::regions_device(sws.p, sbytes, dv, d_lab.as<std::uint32_t>(), nullptr, cap, nullptr, o, s), Error);
    ok(cudaStreamSynchronize(s), "sync");
    cudaStreamDestroy(s);
}

}  // namespace
}  // namespace cclabel::test
