// The GPU's segmentation steps run on the CPU: segment_bodies.cuh driven block by block and thread
// by thread with the GPU's launch shapes (plain arrays for shared memory, plain additions for
// atomics), against the direct references and the CPU implementation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
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

TEST(SegmentBodies, ThresholdAsTheGpuRunsIt) {
    int seed = 100;
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32, PixelFormat::RGB8, PixelFormat::RGBA8})
        for (auto [w, h] : {std::pair{1, 1}, {5, 3}, {16, 1}, {97, 13}, {256, 9}})
            for (std::uint32_t t : {0u, 1u, 100u, 254u, 255u, 256u, 70000u}) {
                // packed Gray8 pictures as the 16-byte path reads them, the others padded and offset
                const bool packed = f == PixelFormat::Gray8 && seed % 2 == 0;
                const Pic p = segref::random_pic(w, h, f, std::uint32_t(++seed), packed ? 0 : 3, packed ? 0 : 1, 256);
                const seg::Picture sp = picture(p);
                const std::uint64_t n = std::uint64_t(w) * std::uint64_t(h);
                std::vector<std::uint8_t> mask(n), want(n);
                for (std::uint64_t i0 = 0; i0 < n; i0 += 16) {  // one thread
                    const auto m = std::uint32_t(std::min<std::uint64_t>(16, n - i0));
                    std::uint32_t out[4];
                    if (packed && m == 16)
                        for (int j = 0; j < 4; ++j) {
                            std::uint32_t word;
                            std::memcpy(&word, sp.data + i0 + 4 * std::uint64_t(j), 4);
                            out[j] = seg::threshold_word(word, t);
                        }
                    else
                        seg::threshold_run16(sp, std::uint32_t(i0), m, t, out);
                    for (std::uint32_t j = 0; j < 16; ++j) {
                        const auto byte = std::uint8_t(out[j / 4] >> (8 * (j % 4)));
                        if (j < m) mask[i0 + j] = byte;
                        else ASSERT_EQ(byte, 0) << "bytes past the run are 0";
                    }
                }
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) want[std::size_t(y) * std::size_t(w) + std::size_t(x)] = segref::value(p, x, y) > t;
                ASSERT_EQ(mask, want) << format_name(f) << " " << w << "x" << h << " t " << t;
            }
}

TEST(SegmentBodies, Gray8WordHistogramAsTheGpuRunsIt) {
    for (auto [w, h] : {std::pair{1, 1}, {3, 1}, {5, 3}, {1000, 70}, {999, 71}})
        for (int levels : {3, 256}) {
            const Pic p = segref::random_pic(w, h, PixelFormat::Gray8, std::uint32_t(w + levels), 0, 0, levels);
            const std::uint64_t n = std::uint64_t(w) * std::uint64_t(h);
            std::vector<std::uint32_t> global(256, 0), want(256, 0);
            HostAtomics a;
            const std::uint32_t per_block = 1024, warps = kThreads / 32;  // a smaller block than the GPU's: several blocks
            for (std::uint64_t b = 0; b < (n / 4 + 1 + per_block - 1) / per_block; ++b) {
                std::vector<std::uint32_t> local(warps * 256, 0);
                for (std::uint32_t t = 0; t < kThreads; ++t)
                    seg::histogram_count_words(p.bytes.data(), n, b, t, kThreads, per_block, &local[t / 32 * 256], a);
                for (std::uint32_t t = 0; t < kThreads; ++t)
                    seg::histogram_merge_copies(t, kThreads, warps, 256, local.data(), global.data(), a);
            }
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) ++want[segref::value(p, x, y)];
            ASSERT_EQ(global, want) << w << "x" << h;
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

/// The init kernel: k-means++ with one chunk of points a thread (256 threads), the chunk totals'
/// exclusive prefix, the smallest crossing over the chunks.
void gpu_plus_plus(const std::uint32_t* sample, std::uint32_t n, std::uint32_t k, std::uint64_t seed,
                   std::uint32_t* centres) {
    if (n == 0) {
        std::fill(centres, centres + 3 * k, 0u);
        return;
    }
    const std::uint32_t T = 256, chunk = (n + T - 1) / T;
    std::vector<std::uint32_t> dist(n);
    auto lo = [&](std::uint32_t t) { return std::min(n, t * chunk); };
    auto hi = [&](std::uint32_t t) { return std::min(n, lo(t) + chunk); };
    for (std::uint32_t i = 0; i < k; ++i) {
        std::uint32_t pick = std::uint32_t(seg::kmeans_pp_draw(seed, 0) % n);
        if (i > 0) {
            std::vector<std::uint64_t> before(T);
            std::uint64_t total = 0;
            for (std::uint32_t t = 0; t < T; ++t) {
                before[t] = total;
                total += seg::kmeans_pp_total(dist.data(), lo(t), hi(t));
            }
            const std::uint64_t r = seg::kmeans_pp_draw(seed, i);
            pick = total == 0 ? std::uint32_t(r % n) : n;
            for (std::uint32_t t = 0; t < T && total != 0; ++t) {
                const std::uint32_t j = seg::kmeans_pp_find(dist.data(), lo(t), hi(t), before[t], r % total);
                if (j < hi(t)) pick = std::min(pick, j);
            }
            pick = std::min(pick, n - 1);
        }
        for (std::uint32_t c = 0; c < 3; ++c) centres[3 * i + c] = sample[3 * pick + c];
        for (std::uint32_t t = 0; t < T; ++t) seg::kmeans_pp_update(sample, lo(t), hi(t), &sample[3 * pick], i == 0, dist.data());
    }
}

TEST(SegmentBodies, DotProductNearestIsTheDistanceNearest) {
    std::mt19937 rng(7);
    const std::uint32_t edges[] = {0, 1, 15, 16, 2040, 4079, 4080};
    for (int round = 0; round < 3000; ++round) {
        const std::uint32_t k = 1 + rng() % seg::kKMeansFastK;
        std::vector<std::uint32_t> centres(3 * k);
        for (auto& c : centres) c = round % 3 == 0 ? edges[rng() % 7] : rng() % 4081;
        if (k > 2 && round % 5 == 0) std::copy_n(&centres[0], 3, &centres[3 * (k - 1)]);  // a tie with centre 0
        std::vector<seg::KMeansTerms> terms(k);
        for (std::uint32_t c = 0; c < k; ++c) terms[c] = seg::kmeans_terms(&centres[3 * c], c);
        for (int i = 0; i < 64; ++i) {
            const std::uint32_t v[3] = {i % 4 == 0 ? 255u : std::uint32_t(rng() % 256), i % 4 == 1 ? 0u : std::uint32_t(rng() % 256),
                                        std::uint32_t(rng() % 256)};
            const std::uint32_t pt[3] = {16 * v[0], 16 * v[1], 16 * v[2]};
            // the direct search: the smallest exact squared distance, the first of equals
            std::uint32_t want = 0;
            std::uint64_t best = ~0ull;
            for (std::uint32_t c = 0; c < k; ++c) {
                std::uint64_t d = 0;
                for (int ch = 0; ch < 3; ++ch) {
                    const std::int64_t e = std::int64_t(pt[ch]) - std::int64_t(centres[3 * c + ch]);
                    d += std::uint64_t(e * e);
                }
                if (d < best) best = d, want = c;
            }
            ASSERT_EQ(seg::kmeans_nearest_fast(std::int32_t(v[0]), std::int32_t(v[1]), std::int32_t(v[2]), terms.data(), k), want);
            ASSERT_EQ(seg::kmeans_nearest(pt, centres.data(), k), want);
        }
    }
}

TEST(SegmentBodies, KMeansAsTheGpuRunsIt) {
    int seed = 0;
    for (PixelFormat f : {PixelFormat::RGB8, PixelFormat::RGBA8, PixelFormat::Gray8})
        for (auto [w, h] : {std::pair{1, 1}, {70, 1}, {129, 130}, {300, 90}, {400, 200}})
            for (std::uint32_t k : {1u, 3u, 8u, 16u, 17u}) {
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
                gpu_plus_plus(sample.data(), n, k, s, centres.data());
                std::vector<std::uint32_t> seq(3 * k);
                seg::kmeans_plus_plus(sample.data(), n, k, s, seq.data(), dist.data());
                ASSERT_EQ(centres, seq);
                // assign kernels (the fast one for k ≤ 16, as the GPU) and update kernels
                std::vector<std::uint32_t> clusters(pixels, 0);
                std::vector<unsigned long long> sums(4 * k, 0);
                HostAtomics a;
                const bool fast = k <= seg::kKMeansFastK;
                const std::uint32_t per_block = fast ? kThreads * seg::kKMeansFastPpt : kThreads * 32;
                auto assign = [&](bool compare) {
                    std::uint32_t changed = 0;
                    std::vector<seg::KMeansTerms> terms(k);
                    for (std::uint32_t c = 0; c < k && fast; ++c) terms[c] = seg::kmeans_terms(&centres[3 * c], c);
                    for (std::uint64_t b = 0; b < (pixels + per_block - 1) / per_block; ++b) {
                        if (fast) {
                            std::vector<std::uint32_t> slots(2 * k * kThreads, 0);
                            for (std::uint32_t t = 0; t < kThreads; ++t)
                                seg::kmeans_assign_fast(sp, b, t, kThreads, seg::kKMeansFastPpt, terms.data(), k,
                                                        clusters.data(), compare, changed, slots.data());
                            for (std::uint32_t t = 0; t < kThreads; ++t)
                                for (std::uint32_t c = 0; c < k; ++c) {
                                    std::uint32_t v[4];
                                    seg::kmeans_unpack(slots[seg::kmeans_slot(c, 0, t, kThreads)],
                                                       slots[seg::kmeans_slot(c, 1, t, kThreads)], v);
                                    for (std::uint32_t ch = 0; ch < 4; ++ch) sums[4 * c + ch] += v[ch];
                                }
                            continue;
                        }
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
