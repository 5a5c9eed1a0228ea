// The GPU's segmentation steps run on the CPU: segment_bodies.cuh driven block by block and thread
// by thread with the GPU's launch shapes (plain arrays for shared memory, plain additions for
// atomics), against the direct references and the CPU implementation.
#include <gtest/gtest.h>

#include <vector>

#include "cclabel/cclabel.hpp"
#include "core/segment_backends.hpp"
#include "cpp/segment_reference.hpp"
#include "cuda/kernels/segment_bodies.cuh"

namespace cclabel::test {
namespace {

using segref::Pic;

struct HostAtomics {
    void add32(std::uint32_t* p, std::uint32_t v) { *p += v; }
    void add64(unsigned long long* p, unsigned long long v) { *p += v; }
};

seg::Picture picture(const Pic& p) {
    return seg::Picture{p.bytes.data() + p.offset, std::uint64_t(p.stride), std::uint32_t(p.w), std::uint32_t(p.h), int(p.f)};
}

constexpr std::uint32_t kThreads = 256;

/// The histogram kernel's grid: per_block pixels a block, pass_bins bins a blockIdx.y.
std::vector<std::uint32_t> gpu_histogram(const Pic& p, std::uint32_t per_block, std::uint32_t pass_bins) {
    const seg::Picture sp = picture(p);
    const std::uint32_t bins = seg::histogram_bins(sp.format);
    std::vector<std::uint32_t> global(bins, 0);
    HostAtomics a;
    const std::uint64_t blocks = (std::uint64_t(p.w * p.h) + per_block - 1) / per_block;
    for (std::uint32_t pass = 0; pass < bins / pass_bins; ++pass)
        for (std::uint64_t b = 0; b < blocks; ++b) {
            std::vector<std::uint32_t> local(pass_bins, 0);
            for (std::uint32_t t = 0; t < kThreads; ++t)
                seg::histogram_count(sp, b, t, kThreads, per_block, pass * pass_bins, pass_bins, local.data(), a);
            for (std::uint32_t t = 0; t < kThreads; ++t)
                seg::histogram_merge(t, kThreads, pass * pass_bins, pass_bins, local.data(), global.data(), a);
        }
    return global;
}

/// The Otsu kernel: 1024 chunks, an exclusive prefix of their totals, a best per chunk, reduced.
std::uint32_t gpu_otsu(const std::vector<std::uint32_t>& hist) {
    const auto bins = std::uint32_t(hist.size());
    const std::uint32_t T = 1024, chunk = (bins + T - 1) / T;
    std::vector<std::uint64_t> w(T), s(T);
    for (std::uint32_t t = 0; t < T; ++t)
        seg::histogram_totals(hist.data(), std::min(bins, t * chunk), std::min(bins, std::min(bins, t * chunk) + chunk), w[t], s[t]);
    std::uint64_t n = 0, sum = 0;
    for (std::uint32_t t = 0; t < T; ++t) {
        const std::uint64_t a = w[t], b = s[t];
        w[t] = n, s[t] = sum;
        n += a, sum += b;
    }
    double best = -1;
    std::uint32_t best_t = 0;
    for (std::uint32_t t = 0; t < T; ++t) {
        double score = -1;
        std::uint32_t st = 0;
        const std::uint32_t b0 = std::min(bins, t * chunk);
        seg::otsu_chunk(hist.data(), b0, std::min(bins, b0 + chunk), w[t], s[t], n, sum, score, st);
        if (score >= 0 && seg::otsu_better(score, st, best, best_t)) best = score, best_t = st;
    }
    return best_t;
}

TEST(SegmentBodies, HistogramAndOtsuAsTheGpuRunsThem) {
    int seed = 0;
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::RGB8, PixelFormat::RGBA8})
        for (auto [w, h] : {std::pair{1, 1}, {255, 3}, {97, 131}, {300, 77}}) {
            ++seed;
            const Pic p = segref::random_pic(w, h, f, std::uint32_t(seed), 3, 2, seed % 2 ? 5 : 256);
            const bool wide = f == PixelFormat::Gray16;
            const std::vector<std::uint32_t> hist = gpu_histogram(p, wide ? kThreads * 64 : kThreads * 16, wide ? 8192 : 256);
            std::vector<std::uint32_t> want(hist.size(), 0);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) ++want[segref::value(p, x, y)];
            ASSERT_EQ(hist, want) << format_name(f) << " " << w << "x" << h;
            std::vector<std::uint32_t> cpu(hist.size());
            detail::histogram_cpu(picture(p), 3, cpu.data());
            EXPECT_EQ(cpu, want);
            const std::uint32_t t = gpu_otsu(hist);
            EXPECT_EQ(t, detail::otsu_from_histogram(hist.data(), std::uint32_t(hist.size())));
            EXPECT_EQ(t, segref::otsu(p)) << format_name(f) << " " << w << "x" << h;
        }
}

TEST(SegmentBodies, CrossDifferenceIsExactWhereDoublesAre) {
    std::mt19937_64 rng(1);
    for (int i = 0; i < 10000; ++i) {
        const std::uint64_t a = rng() >> 40, b = rng() >> 40, c = rng() >> 40, d = rng() >> 40;  // products < 2^48
        EXPECT_EQ(seg::exact_cross_difference(a, b, c, d), double(std::int64_t(a * b) - std::int64_t(c * d)));
    }
    // Beyond 64 bits: 2^40 · 2^40 − 1 · 1 = 2^80 − 1, which rounds to 2^80.
    EXPECT_EQ(seg::exact_cross_difference(1ull << 40, 1ull << 40, 1, 1), 1208925819614629174706176.0);
    EXPECT_EQ(seg::exact_cross_difference(1, 1, 1ull << 40, 1ull << 40), -1208925819614629174706176.0);
    EXPECT_EQ(seg::exact_cross_difference(3ull << 40, 1ull << 40, 1ull << 41, 1ull << 40), 1208925819614629174706176.0);
}

TEST(SegmentBodies, KMeansAsTheGpuRunsIt) {
    int seed = 0;
    for (PixelFormat f : {PixelFormat::RGB8, PixelFormat::RGBA8, PixelFormat::Gray8})
        for (auto [w, h] : {std::pair{1, 1}, {70, 1}, {129, 130}, {300, 90}})
            for (std::uint32_t k : {1u, 3u, 8u}) {
                ++seed;
                const Pic p = segref::random_pic(w, h, f, std::uint32_t(seed), 1, 3, seed % 2 ? 6 : 256);
                const seg::Picture sp = picture(p);
                const std::uint64_t pixels = std::uint64_t(w * h), s = std::uint64_t(seed) * 31;
                const int iters = 5;
                // sample + init kernels
                const std::uint32_t n = seg::kmeans_sample_size(pixels);
                std::vector<std::uint32_t> sample(3 * n), dist(n), centres(3 * k);
                for (std::uint32_t j = 0; j < n; ++j) {
                    const std::uint64_t i = seg::kmeans_sample_index(s, j, pixels);
                    seg::kmeans_point(sp, std::uint32_t(i % sp.width), std::uint32_t(i / sp.width), &sample[3 * j]);
                }
                seg::kmeans_plus_plus(sample.data(), n, k, s, centres.data(), dist.data());
                // assign kernels (8192 pixels a block, as the GPU) and update kernels
                std::vector<std::uint32_t> clusters(pixels, 0);
                std::vector<unsigned long long> sums(4 * k, 0);
                HostAtomics a;
                const std::uint32_t per_block = kThreads * 32;
                auto assign = [&](bool compare) {
                    std::uint32_t changed = 0;
                    for (std::uint64_t b = 0; b < (pixels + per_block - 1) / per_block; ++b) {
                        std::vector<unsigned long long> local(4 * k, 0);
                        for (std::uint32_t t = 0; t < kThreads; ++t)
                            seg::kmeans_assign(sp, b, t, kThreads, per_block, centres.data(), k, clusters.data(), compare,
                                               changed, local.data(), a);
                        for (std::uint32_t i = 0; i < 4 * k; ++i) sums[i] += local[i];
                    }
                    return changed;
                };
                assign(false);
                std::uint32_t done_iters = 0;
                bool converged = false;
                for (int it = 1; it <= iters; ++it) {
                    for (std::uint32_t c = 0; c < k; ++c)
                        for (int ch = 0; ch < 3; ++ch)
                            centres[3 * c + ch] = seg::kmeans_new_centre(sums[4 * c + ch], sums[4 * c + 3], centres[3 * c + ch]);
                    std::fill(sums.begin(), sums.end(), 0);
                    done_iters = std::uint32_t(it);
                    if (assign(true) == 0) {
                        converged = true;
                        break;
                    }
                }
                KMeansOptions o;
                o.k = int(k), o.max_iterations = iters, o.seed = s, o.backend = Backend::Cpu, o.threads = 2;
                std::vector<std::uint32_t> cpu(pixels);
                const KMeansResult r = kmeans(p.view(), cpu.data(), o);
                const std::string what = std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h) + " k " + std::to_string(k);
                ASSERT_EQ(clusters, cpu) << what;
                EXPECT_EQ(done_iters, r.iterations) << what;
                EXPECT_EQ(converged, r.converged) << what;
                for (std::uint32_t c = 0; c < k; ++c)
                    for (std::size_t ch = 0; ch < 3; ++ch) EXPECT_EQ(float(centres[3 * c + ch]) / 16.f, r.centres[c][ch]) << what;
            }
}

}  // namespace
}  // namespace cclabel::test
