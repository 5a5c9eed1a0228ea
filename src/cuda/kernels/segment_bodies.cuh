#pragma once
// The per-thread logic of segmentation (histogram, Otsu, threshold, K-means), written once for the
// GPU kernels, the CPU implementation and the tests: whatever arithmetic decides a result lives
// here, so the backends cannot drift apart. Atomics are a policy (A::add32, A::add64) so the tests
// run the block-level steps on the CPU with plain additions standing in for shared memory.
#include <cstdint>

#include "cclabel/detail/hd.hpp"
#include "cclabel/image_view.hpp"
#include "cclabel/segment.hpp"

namespace cclabel::seg {

/// A picture as the bodies read it (validated; stride resolved; width·height < 2^32).
struct Picture {
    const std::uint8_t* data;
    std::uint64_t stride;
    std::uint32_t width;
    std::uint32_t height;
    int format;  // PixelFormat as int
};

CCL_HD const std::uint8_t* pixel_ptr(const Picture& p, std::uint32_t x, std::uint32_t y) {
    return p.data + std::uint64_t(y) * p.stride + std::uint64_t(x) * std::uint64_t(bytes_per_pixel(PixelFormat(p.format)));
}

/// The value thresholding and Otsu read (byte loads only: any alignment; little-endian hosts and GPUs).
CCL_HD std::uint32_t pixel_value(const Picture& p, std::uint32_t x, std::uint32_t y) {
    const std::uint8_t* q = pixel_ptr(p, x, y);
    switch (PixelFormat(p.format)) {
        case PixelFormat::Gray16: return std::uint32_t(q[0]) | std::uint32_t(q[1]) << 8;
        case PixelFormat::U32:
            return std::uint32_t(q[0]) | std::uint32_t(q[1]) << 8 | std::uint32_t(q[2]) << 16 | std::uint32_t(q[3]) << 24;
        case PixelFormat::RGB8:
        case PixelFormat::RGBA8: return luminance(q[0], q[1], q[2]);
        default: return q[0];
    }
}

/// Walks a thread's pixels base + thread, base + thread + step, ... (raster indices < 2^32) with
/// their (x, y), dividing only when a step wraps a row.
struct PixelWalk {
    std::uint32_t i, x, y;
    CCL_HD PixelWalk(std::uint32_t start, std::uint32_t width) : i(start), x(start % width), y(start / width) {}
    CCL_HD void advance(std::uint32_t step, std::uint32_t width) {
        i += step;
        x += step;
        if (x >= width) {
            y += x / width;
            x %= width;
        }
    }
};

/// Histogram bins of a format Otsu accepts.
CCL_HD std::uint32_t histogram_bins(int format) { return PixelFormat(format) == PixelFormat::Gray16 ? 65536u : 256u; }

// ---- Otsu --------------------------------------------------------------------------------------

/// a·b − c·d for a·b, c·d < 2^128, as a double rounded as documented in segment.hpp: the exact
/// 128-bit difference, its magnitude's high and low words each converted, then added once.
CCL_HD double exact_cross_difference(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
#if defined(__CUDA_ARCH__)
    std::uint64_t hi1 = __umul64hi(a, b), lo1 = a * b;
    std::uint64_t hi2 = __umul64hi(c, d), lo2 = c * d;
#else
    __extension__ typedef unsigned __int128 u128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet
    const u128 m1 = u128(a) * b, m2 = u128(c) * d;
    std::uint64_t hi1 = std::uint64_t(m1 >> 64), lo1 = std::uint64_t(m1);
    std::uint64_t hi2 = std::uint64_t(m2 >> 64), lo2 = std::uint64_t(m2);
#endif
    bool negative = hi1 < hi2 || (hi1 == hi2 && lo1 < lo2);
    if (negative) {
        std::uint64_t t = hi1; hi1 = hi2; hi2 = t;
        t = lo1; lo1 = lo2; lo2 = t;
    }
    const std::uint64_t lo = lo1 - lo2;
    const std::uint64_t hi = hi1 - hi2 - (lo1 < lo2 ? 1u : 0u);
    // hi < 2^53 for every histogram the library builds (N·S0 < 2^32 · 2^48), so double(hi) is exact
    // and 2^64·double(hi) too; the sum is one rounding.
    const double v = double(hi) * 18446744073709551616.0 + double(lo);
    return negative ? -v : v;
}

/// Otsu's score of the split {≤ t} | {> t} (see segment.hpp), or −1 when a class is empty.
/// @p n pixels, @p s their value sum, @p w0 pixels ≤ t, @p s0 their sum.
CCL_HD double otsu_score(std::uint64_t n, std::uint64_t s, std::uint64_t w0, std::uint64_t s0) {
    if (w0 == 0 || w0 >= n) return -1.0;
    const double d = exact_cross_difference(n, s0, s, w0);
#if defined(__CUDA_ARCH__)
    return __ddiv_rn(__dmul_rn(d, d), __dmul_rn(double(w0), double(n - w0)));
#else
    return (d * d) / (double(w0) * double(n - w0));
#endif
}

/// True when candidate (score, t) beats (best, best_t): higher score, ties to the smaller t.
CCL_HD bool otsu_better(double score, std::uint32_t t, double best, std::uint32_t best_t) {
    return score > best || (score == best && t < best_t);
}

/// Best split within bins [b0, b1) given the pixels and sum of the bins below b0 (the running
/// totals), updating (best, best_t). One GPU thread runs one chunk; the CPU runs all bins as one.
CCL_HD void otsu_chunk(const std::uint32_t* hist, std::uint32_t b0, std::uint32_t b1, std::uint64_t w_before,
                       std::uint64_t s_before, std::uint64_t n, std::uint64_t s, double& best, std::uint32_t& best_t) {
    std::uint64_t w0 = w_before, s0 = s_before;
    for (std::uint32_t t = b0; t < b1; ++t) {
        w0 += hist[t];
        s0 += std::uint64_t(hist[t]) * t;
        const double score = otsu_score(n, s, w0, s0);
        if (score >= 0 && otsu_better(score, t, best, best_t)) {
            best = score;
            best_t = t;
        }
    }
}

/// Pixel count and value sum of bins [b0, b1).
CCL_HD void histogram_totals(const std::uint32_t* hist, std::uint32_t b0, std::uint32_t b1, std::uint64_t& w,
                             std::uint64_t& s) {
    w = 0;
    s = 0;
    for (std::uint32_t t = b0; t < b1; ++t) {
        w += hist[t];
        s += std::uint64_t(hist[t]) * t;
    }
}

/// Histogram kernel, counting step: thread @p thread of block @p block counts its pixels whose bin
/// lies in [bin_lo, bin_lo + bin_count) into the block's histogram @p local (shared memory).
/// Pixel i of the block is block·per_block + thread + j·threads, j < per_block / threads.
template <class A>
CCL_HD void histogram_count(const Picture& p, std::uint64_t block, std::uint32_t thread, std::uint32_t threads,
                            std::uint32_t per_block, std::uint32_t bin_lo, std::uint32_t bin_count,
                            std::uint32_t* local, A& atomics) {
    const std::uint64_t pixels = std::uint64_t(p.width) * p.height;
    const std::uint64_t base = block * per_block + thread;
    if (base >= pixels) return;
    const std::uint64_t end = base - thread + per_block < pixels ? base - thread + per_block : pixels;
    for (PixelWalk w(std::uint32_t(base), p.width); w.i < end; w.advance(threads, p.width)) {
        const std::uint32_t v = pixel_value(p, w.x, w.y) - bin_lo;
        if (v < bin_count) atomics.add32(&local[v], 1u);
        if (end - w.i <= threads) break;  // the next step would pass the end (or wrap 32 bits)
    }
}

/// Histogram kernel, merging step: one global atomic per non-zero bin of the block.
template <class A>
CCL_HD void histogram_merge(std::uint32_t thread, std::uint32_t threads, std::uint32_t bin_lo, std::uint32_t bin_count,
                            const std::uint32_t* local, std::uint32_t* global, A& atomics) {
    for (std::uint32_t b = thread; b < bin_count; b += threads)
        if (local[b] != 0) atomics.add32(&global[bin_lo + b], local[b]);
}

/// The threshold mask byte of pixel (x, y).
CCL_HD std::uint8_t threshold_pixel(const Picture& p, std::uint32_t x, std::uint32_t y, std::uint32_t t) {
    return pixel_value(p, x, y) > t ? 1u : 0u;
}

// ---- K-means -----------------------------------------------------------------------------------

/// SplitMix64's finaliser of seed + (n + 1)·golden gamma: the one random function of K-means.
CCL_HD std::uint64_t mix64(std::uint64_t seed, std::uint64_t n) {
    std::uint64_t z = seed + (n + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// Channels K-means clusters: 3 for RGB8/RGBA8, 1 for Gray8.
CCL_HD int kmeans_channels(int format) { return PixelFormat(format) == PixelFormat::Gray8 ? 1 : 3; }

/// The pixel's point: 16 × each channel (unused channels 0).
CCL_HD void kmeans_point(const Picture& p, std::uint32_t x, std::uint32_t y, std::uint32_t pt[3]) {
    const std::uint8_t* q = pixel_ptr(p, x, y);
    if (PixelFormat(p.format) == PixelFormat::Gray8) {
        pt[0] = std::uint32_t(q[0]) << kKMeansFractionBits;
        pt[1] = pt[2] = 0;
    } else {
        pt[0] = std::uint32_t(q[0]) << kKMeansFractionBits;
        pt[1] = std::uint32_t(q[1]) << kKMeansFractionBits;
        pt[2] = std::uint32_t(q[2]) << kKMeansFractionBits;
    }
}

/// Squared distance of a point and a centre (both in 1/16 units, < 2^12 a channel: fits 32 bits).
CCL_HD std::uint32_t kmeans_distance(const std::uint32_t pt[3], const std::uint32_t* c) {
    const std::int32_t d0 = std::int32_t(pt[0]) - std::int32_t(c[0]);
    const std::int32_t d1 = std::int32_t(pt[1]) - std::int32_t(c[1]);
    const std::int32_t d2 = std::int32_t(pt[2]) - std::int32_t(c[2]);
    return std::uint32_t(d0 * d0) + std::uint32_t(d1 * d1) + std::uint32_t(d2 * d2);
}

/// The nearest of @p k centres (k × 3 values), ties to the smaller index.
CCL_HD std::uint32_t kmeans_nearest(const std::uint32_t pt[3], const std::uint32_t* centres, std::uint32_t k) {
    std::uint32_t best = 0, best_d = kmeans_distance(pt, centres);
    for (std::uint32_t c = 1; c < k; ++c) {
        const std::uint32_t d = kmeans_distance(pt, centres + 3 * c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

/// Number of sample points for an image of @p pixels.
CCL_HD std::uint32_t kmeans_sample_size(std::uint64_t pixels) {
    return pixels < kKMeansSample ? std::uint32_t(pixels) : kKMeansSample;
}

/// Raster index of sample point @p j.
CCL_HD std::uint64_t kmeans_sample_index(std::uint64_t seed, std::uint32_t j, std::uint64_t pixels) {
    return pixels <= kKMeansSample ? j : mix64(seed, j) % pixels;
}

/// k-means++ on @p sample (@p n points of 3 values) into @p centres (k × 3), with @p dist (n
/// values) as scratch. Sequential: n·k steps (one GPU thread runs it; 2048 × k).
CCL_HD void kmeans_plus_plus(const std::uint32_t* sample, std::uint32_t n, std::uint32_t k, std::uint64_t seed,
                             std::uint32_t* centres, std::uint32_t* dist) {
    if (n == 0) {
        for (std::uint32_t i = 0; i < 3 * k; ++i) centres[i] = 0;
        return;
    }
    const std::uint64_t stream = std::uint64_t(1) << 32;
    std::uint32_t pick = std::uint32_t(mix64(seed, stream) % n);
    for (std::uint32_t i = 0; i < k; ++i) {
        if (i > 0) {
            std::uint64_t total = 0;
            for (std::uint32_t j = 0; j < n; ++j) total += dist[j];
            const std::uint64_t r = mix64(seed, stream + i);
            if (total == 0) {
                pick = std::uint32_t(r % n);
            } else {
                const std::uint64_t target = r % total;
                std::uint64_t run = 0;
                pick = n - 1;
                for (std::uint32_t j = 0; j < n; ++j) {
                    run += dist[j];
                    if (run > target) {
                        pick = j;
                        break;
                    }
                }
            }
        }
        for (int c = 0; c < 3; ++c) centres[3 * i + c] = sample[3 * pick + c];
        for (std::uint32_t j = 0; j < n; ++j) {
            const std::uint32_t d = kmeans_distance(sample + 3 * j, centres + 3 * i);
            if (i == 0 || d < dist[j]) dist[j] = d;
        }
    }
}

/// A cluster's new centre channel from its exact sums (channel levels, not 1/16 units), or the old
/// one for an empty cluster.
CCL_HD std::uint32_t kmeans_new_centre(std::uint64_t sum, std::uint64_t count, std::uint32_t old) {
    return count == 0 ? old : std::uint32_t(((sum << kKMeansFractionBits) + count / 2) / count);
}

/// A thread's run of pixels of one cluster, flushed to the block's sums when the cluster changes:
/// coherent pictures need few shared-memory atomics.
struct KMeansRun {
    std::uint32_t cluster = 0xFFFFFFFFu;
    std::uint32_t sum[3] = {0, 0, 0};
    std::uint32_t count = 0;
};

/// Adds a run to the block sums @p local (k × 4 uint64: sum R, G, B, count).
template <class A>
CCL_HD void kmeans_flush(KMeansRun& run, unsigned long long* local, A& atomics) {
    if (run.count == 0) return;
    unsigned long long* s = local + 4 * std::uint64_t(run.cluster);
    atomics.add64(&s[0], run.sum[0]);
    atomics.add64(&s[1], run.sum[1]);
    atomics.add64(&s[2], run.sum[2]);
    atomics.add64(&s[3], run.count);
    run.count = 0;
    run.sum[0] = run.sum[1] = run.sum[2] = 0;
}

/// Adds one pixel (channel levels = point / 16) of @p cluster to the run, flushing first if needed.
template <class A>
CCL_HD void kmeans_accumulate(KMeansRun& run, std::uint32_t cluster, const std::uint32_t pt[3],
                              unsigned long long* local, A& atomics) {
    if (cluster != run.cluster || run.count >= (1u << 20)) {
        kmeans_flush(run, local, atomics);
        run.cluster = cluster;
    }
    run.sum[0] += pt[0] >> kKMeansFractionBits;
    run.sum[1] += pt[1] >> kKMeansFractionBits;
    run.sum[2] += pt[2] >> kKMeansFractionBits;
    ++run.count;
}

/// Assign step of thread @p thread in block @p block over pixels block·per_block + thread +
/// j·threads: nearest centre written to @p clusters; with @p compare, pixels whose cluster changed
/// are counted into @p changed; the pixel joins the block sums for the next update.
template <class A>
CCL_HD void kmeans_assign(const Picture& p, std::uint64_t block, std::uint32_t thread, std::uint32_t threads,
                          std::uint32_t per_block, const std::uint32_t* centres, std::uint32_t k, std::uint32_t* clusters,
                          bool compare, std::uint32_t& changed, unsigned long long* local, A& atomics) {
    const std::uint64_t pixels = std::uint64_t(p.width) * p.height;
    const std::uint64_t base = block * per_block + thread;
    if (base >= pixels) return;
    const std::uint64_t end = base - thread + per_block < pixels ? base - thread + per_block : pixels;
    KMeansRun run;
    for (PixelWalk w(std::uint32_t(base), p.width); w.i < end; w.advance(threads, p.width)) {
        std::uint32_t pt[3];
        kmeans_point(p, w.x, w.y, pt);
        const std::uint32_t c = kmeans_nearest(pt, centres, k);
        if (compare && clusters[w.i] != c) ++changed;
        clusters[w.i] = c;
        kmeans_accumulate(run, c, pt, local, atomics);
        if (end - w.i <= threads) break;  // the next step would pass the end (or wrap 32 bits)
    }
    kmeans_flush(run, local, atomics);
}

}  // namespace cclabel::seg
