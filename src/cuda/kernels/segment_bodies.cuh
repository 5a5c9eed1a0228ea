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

/// The mask bytes of four Gray8 pixels (the bytes of @p word, little-endian) at threshold @p t.
CCL_HD std::uint32_t threshold_word(std::uint32_t word, std::uint32_t t) {
    if (t >= 255) return 0;
#if defined(__CUDA_ARCH__)
    return __vcmpgtu4(word, t * 0x01010101u) & 0x01010101u;
#else
    std::uint32_t m = 0;
    for (std::uint32_t b = 0; b < 32; b += 8)
        if (((word >> b) & 0xFFu) > t) m |= 1u << b;
    return m;
#endif
}

/// The mask bytes of the @p n ≤ 16 pixels from raster index @p i0 (i0 + n ≤ width·height), packed
/// four a word as in memory: byte j of the run is byte j % 4 of out[j / 4]; the rest are 0.
CCL_HD void threshold_run16(const Picture& p, std::uint32_t i0, std::uint32_t n, std::uint32_t t, std::uint32_t out[4]) {
    out[0] = out[1] = out[2] = out[3] = 0;
    PixelWalk w(i0, p.width);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (std::uint32_t j = 0; j < 16; ++j)
        if (j < n) {
            out[j / 4] |= std::uint32_t(threshold_pixel(p, w.x, w.y, t)) << (8 * (j % 4));
            w.advance(1, p.width);
        }
}

/// Gray8 histogram over 4-pixel words (a packed picture, @p data 4-byte aligned): thread @p thread
/// of block @p block counts words block·per_block + thread + j·threads into @p local (256 bins);
/// block 0 also counts the last pixels·mod·4 pixels by bytes.
template <class A>
CCL_HD void histogram_count_words(const std::uint8_t* data, std::uint64_t pixels, std::uint64_t block,
                                  std::uint32_t thread, std::uint32_t threads, std::uint32_t per_block,
                                  std::uint32_t* local, A& atomics) {
    const std::uint64_t words = pixels / 4, first = block * per_block;
    const std::uint64_t end = first + per_block < words ? first + per_block : words;
    const auto* w = reinterpret_cast<const std::uint32_t*>(data);
    for (std::uint64_t i = first + thread; i < end; i += threads) {
        const std::uint32_t v = w[i];
        atomics.add32(&local[v & 0xFFu], 1u);
        atomics.add32(&local[(v >> 8) & 0xFFu], 1u);
        atomics.add32(&local[(v >> 16) & 0xFFu], 1u);
        atomics.add32(&local[v >> 24], 1u);
    }
    if (block == 0 && thread < pixels % 4) atomics.add32(&local[data[4 * words + thread]], 1u);
}

/// Merging step of @p copies histograms of @p bins bins (copy c at local + c·bins): one global
/// atomic per non-zero bin of their sum.
template <class A>
CCL_HD void histogram_merge_copies(std::uint32_t thread, std::uint32_t threads, std::uint32_t copies, std::uint32_t bins,
                                   const std::uint32_t* local, std::uint32_t* global, A& atomics) {
    for (std::uint32_t b = thread; b < bins; b += threads) {
        std::uint32_t sum = 0;
        for (std::uint32_t c = 0; c < copies; ++c) sum += local[c * bins + b];
        if (sum != 0) atomics.add32(&global[b], sum);
    }
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

// k-means++ in chunk steps: the sequential loop is these steps over one chunk [0, n); the GPU
// runs them over one chunk a thread with block-wide sums in between (every sum is an exact
// integer, so the chunking cannot change the pick).

/// Σ dist[j0..j1).
CCL_HD std::uint64_t kmeans_pp_total(const std::uint32_t* dist, std::uint32_t j0, std::uint32_t j1) {
    std::uint64_t total = 0;
    for (std::uint32_t j = j0; j < j1; ++j) total += dist[j];
    return total;
}

/// The first j in [j0, j1) where @p before + Σ dist[j0..j] exceeds @p target, or j1 if none does.
CCL_HD std::uint32_t kmeans_pp_find(const std::uint32_t* dist, std::uint32_t j0, std::uint32_t j1, std::uint64_t before,
                                    std::uint64_t target) {
    std::uint64_t run = before;
    for (std::uint32_t j = j0; j < j1; ++j) {
        run += dist[j];
        if (run > target) return j;
    }
    return j1;
}

/// Centre @p i's draw: mix(seed, 2^32 + i).
CCL_HD std::uint64_t kmeans_pp_draw(std::uint64_t seed, std::uint32_t i) {
    return mix64(seed, (std::uint64_t(1) << 32) + i);
}

/// dist[j] for j in [j0, j1): the squared distance of sample point j to @p centre, or the smaller
/// of that and dist[j] after the first centre.
CCL_HD void kmeans_pp_update(const std::uint32_t* sample, std::uint32_t j0, std::uint32_t j1, const std::uint32_t* centre,
                             bool first, std::uint32_t* dist) {
    for (std::uint32_t j = j0; j < j1; ++j) {
        const std::uint32_t d = kmeans_distance(sample + 3 * j, centre);
        if (first || d < dist[j]) dist[j] = d;
    }
}

/// k-means++ on @p sample (@p n points of 3 values) into @p centres (k × 3), with @p dist (n
/// values) as scratch: the chunk steps over one chunk.
CCL_HD void kmeans_plus_plus(const std::uint32_t* sample, std::uint32_t n, std::uint32_t k, std::uint64_t seed,
                             std::uint32_t* centres, std::uint32_t* dist) {
    if (n == 0) {
        for (std::uint32_t i = 0; i < 3 * k; ++i) centres[i] = 0;
        return;
    }
    std::uint32_t pick = std::uint32_t(kmeans_pp_draw(seed, 0) % n);
    for (std::uint32_t i = 0; i < k; ++i) {
        if (i > 0) {
            const std::uint64_t total = kmeans_pp_total(dist, 0, n);
            const std::uint64_t r = kmeans_pp_draw(seed, i);
            if (total == 0) {
                pick = std::uint32_t(r % n);
            } else {
                pick = kmeans_pp_find(dist, 0, n, 0, r % total);
                if (pick == n) pick = n - 1;
            }
        }
        for (int c = 0; c < 3; ++c) centres[3 * i + c] = sample[3 * pick + c];
        kmeans_pp_update(sample, 0, n, centres + 3 * i, i == 0, dist);
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

// ---- K-means, the fast assign (k ≤ kKMeansFastK) --------------------------------------------
//
// Nearest centre by a dot product: with v the pixel's channel levels (its point p = 16·v),
// |p − c|² = |p|² + (|c|² − 32·v·c) and |p|² is the pixel's own, so the nearest centre is the one
// with the smallest |c|² − 32·v·c: three multiply-adds a centre instead of three differences and
// squares. The score is 16·(|c|² − 32·v·c) + index (k ≤ 16), so one min picks the smallest
// distance, ties to the smaller index. Bounds (channels ≤ 255, centres ≤ 16·255 = 4080, as a mean
// rounded half up cannot pass its largest value): 16·|c|² ≤ 16·3·4080² < 8.0·10^8 and
// 16·32·v·c ≤ 512·3·255·4080 < 1.6·10^9, so every partial sum lies in (−2^31, 2^31).
// Pixel sums go to per-thread counters (two 32-bit words a cluster: R | G << 16, B | count << 16)
// that no other thread touches: no atomics, no contention, whatever the picture; a thread takes at
// most kKMeansFastPpt ≤ 257 pixels, so no 16-bit field can overflow (257 · 255 = 65535).

inline constexpr std::uint32_t kKMeansFastK = 16;
inline constexpr std::uint32_t kKMeansFastPpt = 128;

/// A centre's terms: score(v) = a + v0·m0 + v1·m1 + v2·m2.
struct KMeansTerms {
    std::int32_t a, m0, m1, m2;
};

/// The terms of centre @p index < 16 (values @p c, 1/16 units, each ≤ 4080).
CCL_HD KMeansTerms kmeans_terms(const std::uint32_t* c, std::uint32_t index) {
    const auto c0 = std::int32_t(c[0]), c1 = std::int32_t(c[1]), c2 = std::int32_t(c[2]);
    return KMeansTerms{16 * (c0 * c0 + c1 * c1 + c2 * c2) + std::int32_t(index), -512 * c0, -512 * c1, -512 * c2};
}

CCL_HD std::int32_t kmeans_score(const KMeansTerms& t, std::int32_t v0, std::int32_t v1, std::int32_t v2) {
    return t.a + v0 * t.m0 + v1 * t.m1 + v2 * t.m2;
}

/// The nearest of k ≤ 16 centres (their terms) to channel levels (v0, v1, v2), ties to the
/// smaller index: kmeans_nearest's answer.
CCL_HD std::uint32_t kmeans_nearest_fast(std::int32_t v0, std::int32_t v1, std::int32_t v2, const KMeansTerms* t,
                                           std::uint32_t k) {
    std::int32_t best = kmeans_score(t[0], v0, v1, v2);
    for (std::uint32_t c = 1; c < k; ++c) {
        const std::int32_t s = kmeans_score(t[c], v0, v1, v2);
        best = s < best ? s : best;
    }
    return std::uint32_t(best) & (kKMeansFastK - 1);  // two's complement: the low bits are the index
}

/// Counter word @p w (0, 1) of cluster @p c of thread @p thread among @p threads: a thread's
/// counters are a column, so a warp's accesses fall in distinct banks whatever the clusters.
CCL_HD std::uint32_t kmeans_slot(std::uint32_t c, std::uint32_t w, std::uint32_t thread, std::uint32_t threads) {
    return (2 * c + w) * threads + thread;
}

/// A cluster's counter words as (R, G, B, count).
CCL_HD void kmeans_unpack(std::uint32_t w0, std::uint32_t w1, std::uint32_t out[4]) {
    out[0] = w0 & 0xFFFFu;
    out[1] = w0 >> 16;
    out[2] = w1 & 0xFFFFu;
    out[3] = w1 >> 16;
}

/// Fast assign of thread @p thread in block @p block: pixels block·threads·ppt + thread +
/// j·threads (j < ppt ≤ kKMeansFastPpt), the nearest of k ≤ 16 centres (their @p terms); with
/// @p compare the pixels whose cluster changed are counted into @p changed and only those are
/// written; each pixel's channels go to the thread's counters in @p slots (2k × threads words,
/// zero before).
CCL_HD void kmeans_assign_fast(const Picture& p, std::uint64_t block, std::uint32_t thread, std::uint32_t threads,
                               std::uint32_t ppt, const KMeansTerms* terms, std::uint32_t k, std::uint32_t* clusters,
                               bool compare, std::uint32_t& changed, std::uint32_t* slots) {
    const std::uint64_t pixels = std::uint64_t(p.width) * p.height;
    const std::uint64_t first = block * threads * ppt;
    const std::uint64_t base = first + thread;
    if (base >= pixels) return;
    const std::uint64_t end = first + std::uint64_t(threads) * ppt < pixels ? first + std::uint64_t(threads) * ppt : pixels;
    const bool gray = PixelFormat(p.format) == PixelFormat::Gray8;
    const std::uint32_t bpp = std::uint32_t(bytes_per_pixel(PixelFormat(p.format)));
    for (PixelWalk w(std::uint32_t(base), p.width); w.i < end; w.advance(threads, p.width)) {
        const std::uint8_t* q = p.data + std::uint64_t(w.y) * p.stride + std::uint64_t(w.x) * bpp;
        const std::uint32_t v0 = q[0], v1 = gray ? 0u : q[1], v2 = gray ? 0u : q[2];
        const std::uint32_t c = kmeans_nearest_fast(std::int32_t(v0), std::int32_t(v1), std::int32_t(v2), terms, k);
        if (!compare) {
            clusters[w.i] = c;
        } else if (clusters[w.i] != c) {
            ++changed;
            clusters[w.i] = c;
        }
        slots[kmeans_slot(c, 0, thread, threads)] += v0 | v1 << 16;
        slots[kmeans_slot(c, 1, thread, threads)] += v2 | 1u << 16;
        if (end - w.i <= threads) break;  // the next step would pass the end (or wrap 32 bits)
    }
}

}  // namespace cclabel::seg
