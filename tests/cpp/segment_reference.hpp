#pragma once
// Straightforward segmentation references written from segment.hpp's definitions, for the tests:
// test pictures, a direct histogram, Otsu by the textbook between-class variance, and Lloyd's
// K-means with the documented initialisation and integer arithmetic.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cclabel/image_view.hpp"

namespace cclabel::test::segref {

struct Pic {
    std::int64_t w = 0, h = 0, stride = 0, offset = 0;
    PixelFormat f = PixelFormat::Gray8;
    std::vector<std::uint8_t> bytes;
    ImageView view() const { return ImageView{bytes.empty() ? nullptr : bytes.data() + offset, w, h, stride, f}; }
    const std::uint8_t* px(std::int64_t x, std::int64_t y) const {
        return bytes.data() + offset + y * stride + x * bytes_per_pixel(f);
    }
};

/// A random picture with row padding and a base offset (bytes outside the picture are random too).
/// @p levels < 256 draws channel values from few levels so that histograms and clusters have mass.
inline Pic random_pic(std::int64_t w, std::int64_t h, PixelFormat f, std::uint32_t seed, int pad = 3, int offset = 1,
                      int levels = 256) {
    Pic p;
    p.w = w;
    p.h = h;
    p.f = f;
    p.stride = w * bytes_per_pixel(f) + pad;
    p.offset = offset;
    p.bytes.resize(std::size_t(offset + p.stride * h + 8));
    std::mt19937 rng(seed);
    for (auto& b : p.bytes) {
        const int v = int(rng() % std::uint32_t(levels));
        b = std::uint8_t(levels >= 256 ? v : v * 255 / std::max(1, levels - 1));
    }
    return p;
}

inline std::uint32_t luma(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
    return (r * 4899 + g * 9617 + b * 1868 + 8192) >> 14;
}

/// The value thresholding reads.
inline std::uint32_t value(const Pic& p, std::int64_t x, std::int64_t y) {
    const std::uint8_t* q = p.px(x, y);
    switch (p.f) {
        case PixelFormat::Gray16: { std::uint16_t v; std::memcpy(&v, q, 2); return v; }
        case PixelFormat::U32: { std::uint32_t v; std::memcpy(&v, q, 4); return v; }
        case PixelFormat::RGB8:
        case PixelFormat::RGBA8: return luma(q[0], q[1], q[2]);
        default: return q[0];
    }
}

/// Otsu by the textbook: maximise w0·w1·(mu0 − mu1)² over t, in long double, ties (to 1e-15
/// relative) to the smallest t; 0 when no t splits.
inline std::uint32_t otsu(const Pic& p) {
    const std::size_t bins = p.f == PixelFormat::Gray16 ? 65536 : 256;
    std::vector<std::uint64_t> hist(bins, 0);
    for (std::int64_t y = 0; y < p.h; ++y)
        for (std::int64_t x = 0; x < p.w; ++x) ++hist[value(p, x, y)];
    long double n = 0, s = 0;
    for (std::size_t t = 0; t < bins; ++t) {
        n += hist[t];
        s += (long double)hist[t] * t;
    }
    long double w0 = 0, s0 = 0, best = -1;
    std::uint32_t best_t = 0;
    for (std::size_t t = 0; t < bins; ++t) {
        w0 += hist[t];
        s0 += (long double)hist[t] * t;
        const long double w1 = n - w0;
        if (w0 == 0 || w1 == 0) continue;
        const long double m0 = s0 / w0, m1 = (s - s0) / w1;
        const long double v = w0 * w1 * (m0 - m1) * (m0 - m1);
        if (v > best * (1 + 1e-15L)) {
            best = v;
            best_t = std::uint32_t(t);
        }
    }
    return best_t;
}

inline std::uint64_t mix(std::uint64_t seed, std::uint64_t n) {
    std::uint64_t z = seed + (n + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct KMeansRef {
    std::vector<std::uint32_t> clusters;
    std::vector<std::int64_t> centres;  ///< k × 3, 1/16 units
    std::uint32_t iterations = 0;
    bool converged = false;
};

/// Lloyd's K-means as segment.hpp defines it, written plainly.
inline KMeansRef kmeans(const Pic& p, int k, int max_iterations, std::uint64_t seed) {
    const int ch = p.f == PixelFormat::Gray8 ? 1 : 3;
    const std::uint64_t n = std::uint64_t(p.w * p.h);
    auto point = [&](std::uint64_t i, int c) -> std::int64_t {
        return c < ch ? std::int64_t(p.px(std::int64_t(i % std::uint64_t(p.w)), std::int64_t(i / std::uint64_t(p.w)))[c]) * 16 : 0;
    };
    auto dist = [&](std::uint64_t i, const std::int64_t* c) {
        std::int64_t d = 0;
        for (int j = 0; j < 3; ++j) d += (point(i, j) - c[j]) * (point(i, j) - c[j]);
        return d;
    };
    KMeansRef r;
    r.centres.assign(std::size_t(3 * k), 0);
    if (n == 0) return r;
    // k-means++ on the sample.
    const std::uint64_t S = n < 2048 ? n : 2048;
    std::vector<std::uint64_t> sample(S);
    for (std::uint64_t j = 0; j < S; ++j) sample[j] = n <= 2048 ? j : mix(seed, j) % n;
    std::vector<std::int64_t> d2(S, 0);
    for (int i = 0; i < k; ++i) {
        std::uint64_t pick;
        const std::uint64_t rnd = mix(seed, (std::uint64_t(1) << 32) + std::uint64_t(i));
        if (i == 0) {
            pick = rnd % S;
        } else {
            std::uint64_t total = 0;
            for (auto d : d2) total += std::uint64_t(d);
            if (total == 0) {
                pick = rnd % S;
            } else {
                const std::uint64_t target = rnd % total;
                std::uint64_t run = 0;
                for (pick = 0; pick < S; ++pick) {
                    run += std::uint64_t(d2[pick]);
                    if (run > target) break;
                }
            }
        }
        for (int c = 0; c < 3; ++c) r.centres[std::size_t(3 * i + c)] = point(sample[pick], c);
        for (std::uint64_t j = 0; j < S; ++j) {
            const std::int64_t d = dist(sample[j], &r.centres[std::size_t(3 * i)]);
            if (i == 0 || d < d2[j]) d2[j] = d;
        }
    }
    auto assign = [&]() {
        std::uint64_t changed = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
            std::uint32_t best = 0;
            for (int c = 1; c < k; ++c)
                if (dist(i, &r.centres[std::size_t(3 * c)]) < dist(i, &r.centres[std::size_t(3 * best)])) best = std::uint32_t(c);
            changed += r.clusters[i] != best;
            r.clusters[i] = best;
        }
        return changed;
    };
    r.clusters.assign(n, 0xFFFFFFFFu);
    assign();
    for (int it = 1; it <= max_iterations; ++it) {
        std::vector<std::uint64_t> sum(std::size_t(3 * k), 0), cnt(std::size_t(k), 0);
        for (std::uint64_t i = 0; i < n; ++i) {
            ++cnt[r.clusters[i]];
            for (int c = 0; c < 3; ++c) sum[3 * r.clusters[i] + std::size_t(c)] += std::uint64_t(point(i, c) / 16);
        }
        for (int c = 0; c < k; ++c)
            if (cnt[std::size_t(c)] != 0)
                for (int j = 0; j < 3; ++j)
                    r.centres[std::size_t(3 * c + j)] =
                        std::int64_t((16 * sum[std::size_t(3 * c + j)] + cnt[std::size_t(c)] / 2) / cnt[std::size_t(c)]);
        r.iterations = std::uint32_t(it);
        if (assign() == 0) {
            r.converged = true;
            break;
        }
    }
    return r;
}

}  // namespace cclabel::test::segref
