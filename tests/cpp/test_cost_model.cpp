// Backend::Auto's cost model: the decision from given rates (every branch, ties, the crossover a
// GPU's fixed cost puts at some size), the CCLABEL_RATES syntax, and, on this machine, what Auto
// resolves to and that the CPU's rate can be measured.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "cclabel/cclabel.hpp"
#include "core/backends.hpp"
#include "core/cost_model.hpp"

namespace cclabel::detail {
namespace {

using Op = Workload::Op;

Workload work(std::uint64_t pixels, PixelFormat f = PixelFormat::Gray8, Op op = Op::Label) {
    return Workload{op, pixels, f, 4};
}

// 1 Gpx/s on the CPU with 10 us fixed; on the GPU 100 Gpx/s, 10 GB/s copies, 200 us fixed.
constexpr CpuRate kCpu{10e-6, 1e-9};
constexpr GpuHostRate kGpu{200e-6, 1e-11, 1e-10};

TEST(CostModel, EstimatesAreAffineInPixelsAndBytes) {
    EXPECT_DOUBLE_EQ(cpu_seconds(work(1000), kCpu), 10e-6 + 1000 * 1e-9);
    // Gray8 labels move 1 + 4 bytes a pixel, RGB8 3 + 4, filters 4 + 4 whatever the format.
    EXPECT_EQ(bytes_per_pixel_moved(work(1, PixelFormat::Gray8)), 5u);
    EXPECT_EQ(bytes_per_pixel_moved(work(1, PixelFormat::RGB8)), 7u);
    EXPECT_EQ(bytes_per_pixel_moved(work(1, PixelFormat::RGB8, Op::Filter)), 8u);
    EXPECT_EQ(bytes_per_pixel_moved(work(1, PixelFormat::Gray16, Op::Segment)), 3u);
    EXPECT_DOUBLE_EQ(gpu_seconds(work(1000, PixelFormat::RGB8), kGpu), 200e-6 + 1000 * 1e-11 + 7000 * 1e-10);
}

TEST(CostModel, NoGpuCpuOnlyOrEmptyMeansCpu) {
    EXPECT_EQ(choose_backend(work(1u << 30), kCpu, std::nullopt), Backend::Cpu);
    Workload w = work(1u << 30);
    w.cpu_only = true;
    EXPECT_EQ(choose_backend(w, kCpu, kGpu), Backend::Cpu);
    EXPECT_EQ(choose_backend(work(0), CpuRate{1, 1}, GpuHostRate{}), Backend::Cpu);
}

TEST(CostModel, TheGpuWinsOnlyPastTheCrossoverItsFixedCostSets) {
    // CPU: 10e-6 + p·1e-9; GPU (Gray8): 200e-6 + p·(1e-11 + 5e-10) → crossover near 387,000 pixels.
    const double per_px_gpu = 1e-11 + 5 * 1e-10;
    const double crossover = (200e-6 - 10e-6) / (1e-9 - per_px_gpu);
    EXPECT_EQ(choose_backend(work(std::uint64_t(crossover * 0.9)), kCpu, kGpu), Backend::Cpu);
    EXPECT_EQ(choose_backend(work(std::uint64_t(crossover * 1.1)), kCpu, kGpu), Backend::Cuda);
    EXPECT_EQ(choose_backend(work(std::uint64_t(1) << 33), kCpu, kGpu), Backend::Cuda);  // too large for one launch: tiled, same bytes
    // RGBA8 moves 8 bytes a pixel: 8e-10 + 1e-11 < 1e-9 still, but later.
    EXPECT_EQ(choose_backend(work(std::uint64_t(crossover * 1.1), PixelFormat::RGBA8), kCpu, kGpu), Backend::Cpu);
    EXPECT_EQ(choose_backend(work(std::uint64_t(crossover * 10), PixelFormat::RGBA8), kCpu, kGpu), Backend::Cuda);
}

TEST(CostModel, APresentButSlowerGpuNeverWins) {
    // Copies alone (5 B/px at 1 GB/s) cost more than the CPU's whole pass: no size makes up for it.
    const GpuHostRate slow{200e-6, 0, 1e-9};
    for (std::uint64_t p : {std::uint64_t(1), std::uint64_t(1) << 20, std::uint64_t(1) << 34})
        EXPECT_EQ(choose_backend(work(p), kCpu, slow), Backend::Cpu) << p;
}

TEST(CostModel, TiesGoToTheCpu) {
    const CpuRate cpu{0, 6e-9};
    const GpuHostRate gpu{0, 1e-9, 1e-9};  // Gray8: 1e-9 + 5e-9 a pixel, the CPU's exactly
    EXPECT_DOUBLE_EQ(cpu_seconds(work(1000), cpu), gpu_seconds(work(1000), gpu));
    EXPECT_EQ(choose_backend(work(1000), cpu, gpu), Backend::Cpu);
}

TEST(CostModel, ParsesGivenRates) {
    const GivenRates g = parse_rates(" cpu_gpxs=2, gpu_gpxs=40,copy_gbs=12.5,gpu_fixed_us=300,cpu_fixed_us=0 ");
    ASSERT_TRUE(g.cpu_gpxs && g.gpu_gpxs && g.copy_gbs && g.gpu_fixed_us && g.cpu_fixed_us);
    EXPECT_FALSE(g.force);
    const CpuRate c = with_given(CpuRate{1, 1}, g);
    EXPECT_DOUBLE_EQ(c.per_pixel_s, 0.5e-9);
    EXPECT_DOUBLE_EQ(c.fixed_s, 0);
    const GpuHostRate r = with_given(GpuHostRate{1, 1, 1}, g);
    EXPECT_DOUBLE_EQ(r.per_pixel_s, 1e-9 / 40);
    EXPECT_DOUBLE_EQ(r.per_byte_s, 1e-9 / 12.5);
    EXPECT_DOUBLE_EQ(r.fixed_s, 300e-6);
    // What is not given stays as measured.
    const GivenRates only = parse_rates("copy_gbs=10");
    EXPECT_DOUBLE_EQ(with_given(GpuHostRate{7, 8, 9}, only).fixed_s, 7);
    EXPECT_EQ(parse_rates("cuda").force, Backend::Cuda);
    EXPECT_EQ(parse_rates("cpu").force, Backend::Cpu);
    EXPECT_FALSE(parse_rates("").force);
}

TEST(CostModel, RejectsMalformedRatesNamingTheVariable) {
    for (const char* bad : {"gpu", "cpu_gpxs", "cpu_gpxs=", "cpu_gpxs=fast", "cpu_gpxs=-1", "cpu_gpxs=0", "copy_gbs=nan",
                            "copy_gbs=inf", "gpu_gpxs=1x", "disk_gbs=3"}) {
        try {
            parse_rates(bad);
            ADD_FAILURE() << "accepted " << bad;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("CCLABEL_RATES"), std::string::npos) << e.what();
        }
    }
}

TEST(CostModel, MeasuresThisCpu) {
    for (Op op : {Op::Label, Op::Filter}) {
        const CpuRate r = measure_cpu_rate(op, PixelFormat::RGB8, 2);
        EXPECT_GT(r.per_pixel_s, 0);
        EXPECT_LT(r.per_pixel_s, 1e-6);  // slower than a megapixel a second would be broken
        EXPECT_GE(r.fixed_s, 0);
        EXPECT_TRUE(std::isfinite(r.fixed_s));
    }
}

/// Sets CCLABEL_RATES for one test and restores it.
struct ScopedRates {
    std::string old;
    bool had = false;
    explicit ScopedRates(const char* value) {
        if (const char* e = std::getenv("CCLABEL_RATES")) {
            old = e;
            had = true;
        }
        setenv("CCLABEL_RATES", value, 1);
    }
    ~ScopedRates() { had ? (void)setenv("CCLABEL_RATES", old.c_str(), 1) : (void)unsetenv("CCLABEL_RATES"); }
};

TEST(CostModel, AutoOnThisMachine) {
    EXPECT_EQ(resolve_auto(Backend::Cpu, work(1u << 24)), Backend::Cpu);
    EXPECT_EQ(resolve_auto(Backend::Cuda, work(1)), Backend::Cuda);
    if (!cuda_device_present()) EXPECT_EQ(resolve_auto(Backend::Auto, work(1u << 30)), Backend::Cpu);
    {
        ScopedRates force("cuda");
        EXPECT_EQ(resolve_auto(Backend::Auto, work(16)), Backend::Cuda);
        Workload w = work(16);
        w.cpu_only = true;  // forcing the GPU cannot make it do what only the CPU does
        EXPECT_EQ(resolve_auto(Backend::Auto, w), Backend::Cpu);
    }
    {
        ScopedRates bad("cpu_gpxs=-3");
        EXPECT_THROW(resolve_auto(Backend::Auto, work(16)), Error);
        EXPECT_EQ(resolve_auto(Backend::Cpu, work(16)), Backend::Cpu);  // only Auto reads it
    }
}

TEST(CostModel, LabelWithAutoReportsTheBackendItRan) {
    std::vector<std::uint8_t> px(64 * 64, 1);
    std::vector<std::uint32_t> out(px.size());
    const LabelResult r = label(make_view(px.data(), 64, 64, PixelFormat::Gray8), out.data());
    EXPECT_EQ(r.count, 1u);
    if (!cuda_device_present()) EXPECT_EQ(r.backend, Backend::Cpu);
    ScopedRates force("cuda");
    if (!cuda_device_present()) {
        // Forced to a GPU that is not there: the same clear error as Backend::Cuda.
        EXPECT_THROW(label(make_view(px.data(), 64, 64, PixelFormat::Gray8), out.data()), Error);
    }
}

TEST(CostModel, SampleBandsSpreadOverThePictureAndStayInside) {
    // A sheet of 33600 x 24000 asked for 2^20 pixels: 4 bands of 7 rows, one centred in each
    // quarter of the height, never past the last row.
    const std::vector<Band> b = sample_bands(33600, 24000, std::uint64_t(1) << 20);
    ASSERT_EQ(b.size(), 4u);
    for (std::size_t i = 0; i < b.size(); ++i) {
        EXPECT_EQ(b[i].count, 7);
        const std::int64_t centre = std::int64_t(2 * i + 1) * 24000 / 8;
        EXPECT_LE(b[i].first, centre);
        EXPECT_GE(b[i].first + b[i].count, centre);
        if (i) EXPECT_GT(b[i].first, b[i - 1].first + b[i - 1].count);
    }
    // Wider than the wish: one row a band. Too few rows for a sample worth taking: none.
    EXPECT_EQ(sample_bands(1 << 22, 100, 1 << 14)[0].count, 1);
    EXPECT_TRUE(sample_bands(100, 100, 1 << 14).empty());
    EXPECT_TRUE(sample_bands(0, 100, 1 << 14).empty());
    const std::vector<Band> last = sample_bands(10, 17, 40);
    ASSERT_EQ(last.size(), 4u);
    EXPECT_LE(last.back().first + last.back().count, 17);
}

TEST(CostModel, ContentFactorIsTheSampleOverThePrediction) {
    const CpuRate one{1e-5, 1e-9};  // 10 us a launch, 1 ns a pixel
    // 4 launches of 10^6 pixels in all: 40 us + 1 ms predicted.
    EXPECT_NEAR(content_factor(1.04e-3, 1000000, 4, one), 1.0, 1e-9);
    EXPECT_NEAR(content_factor(0.26e-3, 1000000, 4, one), 0.25, 1e-9);   // a drawing: 4x faster
    EXPECT_NEAR(content_factor(3.12e-3, 1000000, 4, one), 3.0, 1e-9);    // noise: 3x slower
    EXPECT_DOUBLE_EQ(content_factor(1.0, 1000000, 4, one), 16.0);       // clamped
    EXPECT_DOUBLE_EQ(content_factor(1e-9, 1000000, 4, one), 1.0 / 16);
    EXPECT_DOUBLE_EQ(content_factor(0, 1000000, 4, one), 1.0);          // nothing measured
    EXPECT_DOUBLE_EQ(content_factor(1e-3, 1000000, 4, CpuRate{}), 1.0);  // nothing to compare with
}

}  // namespace
}  // namespace cclabel::detail
