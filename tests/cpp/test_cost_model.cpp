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
#include "core/probe.hpp"
#include "core/request.hpp"

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

TEST(CostModel, NoGpuOrEmptyMeansCpu) {
    EXPECT_EQ(choose_backend(work(1u << 30), kCpu, std::nullopt), Backend::Cpu);
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
    for (Op op : {Op::Label, Op::Filter, Op::Stats}) {
        const CpuRate r = measure_cpu_rate(op, PixelFormat::RGB8, 2);
        EXPECT_GT(r.per_pixel_s, 0);
        EXPECT_LT(r.per_pixel_s, 1e-6);  // slower than a megapixel a second would be broken
        EXPECT_GE(r.fixed_s, 0);
        EXPECT_TRUE(std::isfinite(r.fixed_s));
    }
}

// Volumes are measured on probe volumes at the call's connectivity: cubes of 16, 4 and 1 voxels, so
// the knots' densities (run starts along x) rise, and 26 neighbours cost more a voxel than 6 on
// noise. Each knot's rate is a real measurement on this machine.
TEST(CostModel, MeasuresThisCpuForVolumes) {
    for (int conn : {6, 26}) {
        const CpuRate r = measure_cpu_rate(Op::Volume, PixelFormat::Gray8, 2, conn);
        ASSERT_EQ(r.knots, 3);
        EXPECT_GT(r.per_pixel_s, 0) << conn;
        EXPECT_LT(r.per_pixel_s, 1e-6) << conn;
        EXPECT_GE(r.fixed_s, 0) << conn;
        EXPECT_LT(r.knot_density[0], 0.1) << conn;   // cubes of 16: about 3/4 of 1/16
        EXPECT_GT(r.knot_density[2], 0.5) << conn;   // noise of four values: about 3/4
        EXPECT_LT(r.knot_density[1], r.knot_density[2]) << conn;
    }
    // A volume moves its voxels in and its labels out.
    Workload v{Op::Volume, 1 << 20, PixelFormat::Gray16, 4};
    v.connectivity = 26;
    EXPECT_EQ(bytes_per_pixel_moved(v), 6u);
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

TEST(CostModel, BreakDensityCountsRunStarts) {
    // 8 x 8 blocks of four values: a break at most every 8 pixels, about 3/4 of those real.
    const std::vector<std::uint8_t> blocks = probe_picture(PixelFormat::RGB8, 512, 512, 8);
    const double db = break_density(make_view(blocks.data(), 512, 512, PixelFormat::RGB8), 1 << 16);
    EXPECT_GT(db, 0.05);
    EXPECT_LT(db, 0.125);
    // Noise of four values: about 3/4 of neighbours differ.
    const std::vector<std::uint8_t> noise = probe_picture(PixelFormat::RGB8, 512, 512, 1);
    const double dn = break_density(make_view(noise.data(), 512, 512, PixelFormat::RGB8), 1 << 16);
    EXPECT_GT(dn, 0.6);
    EXPECT_LT(dn, 0.9);
    // One value: none. Stripes every other pixel: all. A padded stride is honoured.
    std::vector<std::uint8_t> flat(300 * 7, 9), stripes(300 * 7 + 6 * 5);
    EXPECT_EQ(break_density(make_view(flat.data(), 300, 7, PixelFormat::Gray8), 1 << 16), 0.0);
    for (std::int64_t y = 0; y < 6; ++y)
        for (std::int64_t x = 0; x < 305; ++x) stripes[std::size_t(y * 305 + x)] = x < 300 ? std::uint8_t(x & 1) : 0;
    const ImageView sv{stripes.data(), 300, 6, 305, PixelFormat::Gray8};
    EXPECT_EQ(break_density(sv, 1 << 16), 1.0);
    EXPECT_EQ(break_density(sv, 1), 1.0);  // one row at least
}

TEST(CostModel, TheCpuEstimateWeighsTheDensity) {
    CpuRate r{1e-5, 2e-9, 0.1};  // 2 ns a pixel at the probe's density
    r.knots = 3;
    const double kd[3] = {0.01, 0.1, 0.5}, kp[3] = {1e-9, 2e-9, 6e-9};
    for (int k = 0; k < 3; ++k) r.knot_density[k] = kd[k], r.knot_per_pixel[k] = kp[k];
    Workload w{Workload::Op::Label, 1000000, PixelFormat::Gray8, 4};
    EXPECT_NEAR(cpu_seconds(w, r), 1e-5 + 2e-3, 1e-12);  // unknown: the probe's rate
    w.density = 0.3;                                      // halfway between the upper knots
    EXPECT_NEAR(cpu_seconds(w, r), 1e-5 + 4e-3, 1e-12);
    w.density = 0.001;                                    // below the first knot: flat
    EXPECT_NEAR(cpu_seconds(w, r), 1e-5 + 1e-3, 1e-12);
    w.density = 0.9;                                      // above the last: flat
    EXPECT_NEAR(cpu_seconds(w, r), 1e-5 + 6e-3, 1e-12);
    // A noisy picture turns a CPU win into a GPU win at the same size.
    const GpuHostRate g{1e-4, 0, 1e-9 / 5};  // 0.1 ms fixed, 5 GB/s: Gray8 moves 5 bytes a pixel
    w.density = 0.01;
    EXPECT_EQ(choose_backend(w, r, g), Backend::Cpu);
    w.density = 0.5;
    EXPECT_EQ(choose_backend(w, r, g), Backend::Cuda);
    // A given CPU rate is the whole rate.
    GivenRates given;
    given.cpu_gpxs = 2.0;
    EXPECT_EQ(with_given(r, given).knots, 0);
    EXPECT_NEAR(cpu_seconds(w, with_given(r, given)), 1e-5 + 0.5e-3, 1e-12);
}

TEST(CostModel, ThePictureIsSampledOnlyWhereItsDensityCouldTurnTheDecision) {
    // Knots as the H100 host measured them for RGB8 at 16 threads: 0.075 ns a pixel at the
    // sparsest, 2.478 ns at noise, 50 us fixed.
    CpuRate r{50e-6, 0.235e-9, 0.09};
    r.knots = 3;
    const double kd[3] = {0.012, 0.09, 0.56}, kp[3] = {0.075e-9, 0.235e-9, 2.478e-9};
    for (int k = 0; k < 3; ++k) r.knot_density[k] = kd[k], r.knot_per_pixel[k] = kp[k];
    Workload w{Workload::Op::Label, 16384, PixelFormat::RGB8, 16};  // 128²: 51.2 to 90.6 us
    const double lo = 50e-6 + 16384 * 0.075e-9 * 1.0, hi = 50e-6 + 16384 * 2.478e-9;
    EXPECT_FALSE(density_can_decide(w, r, 150e-6));  // the GPU's fixed cost alone loses to any picture
    EXPECT_FALSE(density_can_decide(w, r, lo * 0.99));  // the GPU wins whatever the picture holds
    EXPECT_TRUE(density_can_decide(w, r, (lo + hi) / 2));
    EXPECT_FALSE(density_can_decide(w, r, hi));  // a tie goes to the CPU: no picture makes the GPU cheaper
    // Each answer agrees with choose_backend at the extremes of density and background.
    for (double gs : {60e-6, 80e-6, 95e-6, 200e-6, lo, hi}) {
        const GpuHostRate g{gs, 0, 0};
        Workload sparse = w, dense = w;
        sparse.density = 0, sparse.background_share = 1;
        dense.density = 1;
        const bool differ = choose_backend(sparse, r, g) != choose_backend(dense, r, g);
        EXPECT_EQ(density_can_decide(w, r, gs), differ) << gs;
    }
    // One rate for every picture (given in CCLABEL_RATES): nothing to look at.
    GivenRates given;
    given.cpu_gpxs = 2.0;
    EXPECT_FALSE(density_can_decide(w, with_given(r, given), 60e-6));
}

TEST(CostModel, TheCpuEstimateSeesTheBackground) {
    // Knots as the H100 host measured them for RGB8 at 16 threads.
    CpuRate r{50e-6, 0.235e-9, 0.09};
    r.knots = 3;
    const double kd[3] = {0.012, 0.09, 0.56}, kp[3] = {0.075e-9, 0.235e-9, 2.478e-9};
    for (int k = 0; k < 3; ++k) r.knot_density[k] = kd[k], r.knot_per_pixel[k] = kp[k];
    // A 3.1 Mpx drawing at density 0.11 with its paper labelled, then as background (half its runs).
    Workload w{Workload::Op::Label, 3100000, PixelFormat::RGB8, 16};
    w.density = 0.11;
    const double line = r.per_pixel_at(0.11);
    const double labelled = cpu_seconds(w, r);
    EXPECT_NEAR(labelled, 50e-6 + 3100000 * line, 1e-12);
    w.background_share = 0.5;
    const double skipped = cpu_seconds(w, r);
    // Half the line's rise above the sparsest knot (the runs' work) is taken off.
    EXPECT_NEAR(skipped, 50e-6 + 3100000 * (line - 0.5 * (line - kp[0])), 1e-12);
    EXPECT_LT(skipped, labelled);
    // The GPU's estimate does not move (its time is the copies, which the background does not
    // shrink), and the decision turns: the GPU with the paper labelled, the CPU with it as background.
    const GpuHostRate g{150e-6, 0.02e-9, 1e-9 / 30};
    Workload plain = w;
    plain.background_share = 0;
    EXPECT_DOUBLE_EQ(gpu_seconds(w, g), gpu_seconds(plain, g));
    EXPECT_LT(gpu_seconds(w, g), labelled);
    EXPECT_GT(gpu_seconds(w, g), skipped);
    EXPECT_EQ(choose_backend(plain, r, g), Backend::Cuda);
    EXPECT_EQ(choose_backend(w, r, g), Backend::Cpu);
    // The larger the share, the cheaper, never below the sparsest knot's rate (the pass over the
    // pixels stays); at the sparsest knot nothing is taken off.
    double last = labelled;
    for (double share : {0.1, 0.25, 0.4, 0.6}) {
        w.background_share = share;
        EXPECT_LT(cpu_seconds(w, r), last) << share;
        last = cpu_seconds(w, r);
    }
    EXPECT_NEAR(r.per_pixel_at(0.11, 1.0), kp[0], 1e-18);
    EXPECT_NEAR(r.per_pixel_at(0.11, 7.0), kp[0], 1e-18);
    EXPECT_NEAR(r.per_pixel_at(0.001, 0.5), kp[0], 1e-18);
    // Noise is labelled pixel by pixel (runs shorter than four pixels): no runs to skip.
    EXPECT_DOUBLE_EQ(r.per_pixel_at(kRunPathDensity, 0.5), r.per_pixel_at(kRunPathDensity));
    EXPECT_DOUBLE_EQ(r.per_pixel_at(0.5, 0.5), r.per_pixel_at(0.5));
    // Only labelling skips background runs, and Binary8's knots have their background already.
    w.background_share = 0.5;
    for (Workload other : {Workload{Op::Tolerance, 3100000, PixelFormat::RGB8, 16},
                           Workload{Op::Stats, 3100000, PixelFormat::RGB8, 16},
                           Workload{Op::Label, 3100000, PixelFormat::Binary8, 16}}) {
        other.density = 0.11;
        const double before = cpu_seconds(other, r);
        other.background_share = 0.5;
        EXPECT_DOUBLE_EQ(cpu_seconds(other, r), before) << int(other.op) << " " << int(other.format);
    }
    // Unknown density: the probe's rate, whatever the background.
    w.density = -1;
    EXPECT_NEAR(cpu_seconds(w, r), 50e-6 + 3100000 * r.per_pixel_s, 1e-12);
    // A given CPU rate (CCLABEL_RATES) is the whole rate, background or not.
    GivenRates given;
    given.cpu_gpxs = 4.0;
    w.density = 0.11;
    EXPECT_NEAR(cpu_seconds(w, with_given(r, given)), 50e-6 + 3100000 * 0.25e-9, 1e-12);
}

TEST(CostModel, SampleCountsTheBackgroundsRuns) {
    // Rows "0 0 1 1 1 0 2 2" (Gray8): 4 runs, 3 breaks in 7 pairs; background 0: 2 runs, 3 pixels.
    const std::uint8_t row[8] = {0, 0, 1, 1, 1, 0, 2, 2};
    std::vector<std::uint8_t> px(32);
    for (std::size_t i = 0; i < px.size(); ++i) px[i] = row[i % 8];
    const ImageView v = make_view(px.data(), 8, 4, PixelFormat::Gray8);
    const PictureSample s = sample_picture(v, 1 << 16, 0u);
    EXPECT_DOUBLE_EQ(s.density, 3.0 / 7.0);
    EXPECT_DOUBLE_EQ(s.runs, 4.0 / 8.0);
    EXPECT_DOUBLE_EQ(s.background_runs, 2.0 / 8.0);
    EXPECT_DOUBLE_EQ(s.background_pixels, 3.0 / 8.0);
    EXPECT_DOUBLE_EQ(break_density(v, 1 << 16), s.density);
    const PictureSample other = sample_picture(v, 1 << 16, 2u);  // a run at the row's end
    EXPECT_DOUBLE_EQ(other.background_runs, 1.0 / 8.0);
    EXPECT_DOUBLE_EQ(other.background_pixels, 2.0 / 8.0);
    const PictureSample no_bg = sample_picture(v, 1 << 16);
    EXPECT_EQ(no_bg.background_runs, 0.0);
    EXPECT_EQ(no_bg.background_pixels, 0.0);
    // RGB8: the key of the first pixel, as the probes take it for their background.
    const std::vector<std::uint8_t> blocks = probe_picture(PixelFormat::RGB8, 256, 256, 8);
    const ImageView bv = make_view(blocks.data(), 256, 256, PixelFormat::RGB8);
    const std::uint64_t first[3] = {blocks[0], blocks[1], blocks[2]};
    const PictureSample bs = sample_picture(bv, 1 << 16, pack_key(PixelFormat::RGB8, first));
    EXPECT_GT(bs.background_runs, 0.1 * bs.runs);  // one of four values: about a quarter of the runs
    EXPECT_LT(bs.background_runs, 0.4 * bs.runs);
}

TEST(CostModel, TheProbeIsBuiltABlockAtATime) {
    // The picture a per-pixel hash gave (what the measurements were calibrated on), for block sizes
    // that do and do not divide the size, and in row ranges filled apart.
    auto reference = [](PixelFormat f, std::int64_t w, std::int64_t h, int block) {
        int shift = 0;
        while (shift < 10 && (2 << shift) <= block) ++shift;
        const int bpp = bytes_per_pixel(f);
        std::vector<std::uint8_t> px(std::size_t(w * h * bpp));
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                std::uint64_t hh = std::uint64_t(x >> shift) * 0x9E3779B97F4A7C15ull ^ std::uint64_t(y >> shift) * 0xC2B2AE3D27D4EB4Full;
                hh ^= hh >> 29;
                hh *= 0xBF58476D1CE4E5B9ull;
                for (int c = 0; c < bpp; ++c) px[std::size_t((y * w + x) * bpp + c)] = std::uint8_t(((hh >> 40) & 3) * 60 + c);
            }
        return px;
    };
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::RGB8, PixelFormat::RGBA8})
        for (int block : {1, 8, 64}) {
            EXPECT_EQ(probe_picture(f, 200, 150, block), reference(f, 200, 150, block)) << int(f) << " " << block;
            std::vector<std::uint8_t> parts(std::size_t(200 * 150 * bytes_per_pixel(f)));
            for (std::int64_t y0 = 0; y0 < 150; y0 += 50)  // ranges that start inside a block too
                fill_probe_rows(parts.data(), f, 200, y0, std::min<std::int64_t>(150, y0 + 50), block);
            EXPECT_EQ(parts, reference(f, 200, 150, block)) << int(f) << " " << block;
        }
}

TEST(CostModel, ABatchPaysTheFixedCostOnceARoundOfImages) {
    const CpuRate r{1e-5, 1e-9, 0.1};  // 10 us a call, 1 ns a pixel at all the threads together
    Workload w{Workload::Op::Label, 1024 * 16384, PixelFormat::Gray8, 16};
    EXPECT_NEAR(cpu_seconds(w, r), 1e-5 + 1024 * 16384 * 1e-9, 1e-12);  // one picture
    w.images = 1024;  // 1,024 images of 128²: an image a thread, 64 rounds
    EXPECT_NEAR(cpu_seconds(w, r), 64 * 1e-5 + 1024 * 16384 * 1e-9, 1e-12);
    w.images = 1000;  // 62 rounds of 16 and one of 8
    w.pixels = 1000 * 16384;
    EXPECT_NEAR(cpu_seconds(w, r), 63 * 1e-5 + 1000 * 16384 * 1e-9, 1e-12);
    w.images = 4;  // fewer images than threads: one round
    w.pixels = 4 * 16384;
    EXPECT_NEAR(cpu_seconds(w, r), 1e-5 + 4 * 16384 * 1e-9, 1e-12);
    // Many tiny images: the fixed costs decide, where one picture of the same pixels would not.
    const GpuHostRate g{1e-3, 0, 1e-9 / 20};  // 1 ms fixed
    Workload tiny{Workload::Op::Label, 4096 * 256, PixelFormat::Gray8, 2};
    EXPECT_EQ(choose_backend(tiny, r, g), Backend::Cpu);
    tiny.images = 4096;
    EXPECT_EQ(choose_backend(tiny, r, g), Backend::Cuda);
}

TEST(CostModel, TheMeasuredRateSeesNoiseCostMore) {
    const CpuRate r = measure_cpu_rate(Workload::Op::Label, PixelFormat::Gray8, 1);
    EXPECT_GT(r.probe_density, 0.05);
    EXPECT_EQ(r.knots, 3);
    EXPECT_LT(r.knot_density[0], r.knot_density[1]);
    EXPECT_LT(r.knot_density[1], r.knot_density[2]);
    EXPECT_GT(r.per_pixel_s, 0.0);
    Workload w{Workload::Op::Label, 1 << 20, PixelFormat::Gray8, 1};
    w.density = 0.75;
    const double noisy = cpu_seconds(w, r);
    w.density = 0.01;
    EXPECT_GE(noisy, cpu_seconds(w, r));
}

TEST(CostModel, TheMeasuredRateHasThreeRisingKnots) {
    // RGB8 at two threads, as a sheet is labelled, and the operations timed on the probes' labels:
    // three knots rising in density, each cost positive and finite (their rise is the measurement's
    // own clamp, not checked here). A narrow noise picture has a large one's density.
    {
        const std::vector<std::uint8_t> wide = probe_picture(PixelFormat::RGB8, 1024, 1024, 1);
        const std::vector<std::uint8_t> narrow = probe_picture(PixelFormat::RGB8, 128, 1024, 1);
        const double dw = sample_picture(make_view(wide.data(), 1024, 1024, PixelFormat::RGB8), 1 << 16).density;
        const double dn = sample_picture(make_view(narrow.data(), 128, 1024, PixelFormat::RGB8), 1 << 16).density;
        EXPECT_NEAR(dn, dw, 0.02);
    }
    for (Op op : {Op::Label, Op::Filter}) {
        const CpuRate r = measure_cpu_rate(op, PixelFormat::RGB8, 2);
        ASSERT_EQ(r.knots, 3);
        EXPECT_GT(r.knot_density[0], 0.0);
        EXPECT_LT(r.knot_density[0], r.knot_density[1]);
        EXPECT_LT(r.knot_density[1], r.knot_density[2]);
        EXPECT_GT(r.knot_density[2], 0.6);  // noise of four values
        for (int k = 0; k < 3; ++k) {
            EXPECT_GT(r.knot_per_pixel[k], 0.0) << k;
            EXPECT_TRUE(std::isfinite(r.knot_per_pixel[k])) << k;
        }
    }
}

}  // namespace
}  // namespace cclabel::detail
