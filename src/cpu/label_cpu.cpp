// The CPU labeller: a two-pass scan-mask labeller over horizontal bands, one band per thread, whose
// union-find lives in the output itself.
//
//   1. Scan. Each band walks its rows. For every pixel a 5-bit code says which earlier neighbours
//      have its key (computed a row at a time, so the comparisons vectorise); the code gives the
//      pixel's provisional label (a neighbour's, or a fresh one) and the rare union the scan mask
//      leaves (neighbour_code.hpp). A fresh label is the pixel's own index + 1, so label l "lives"
//      at pixel l - 1, whose own entry is l: the label image doubles as the union-find forest
//      (out[l - 1] is l's parent) and the labeller needs no memory beyond the output. Unions hang
//      the larger root under the smaller, so every set stays rooted at its first pixel.
//   2. Seams. One thread unites the labels that touch across each band seam (last row of band b-1,
//      first row of band b), and points every root it hung under another band's straight at the
//      final root (band_numbering.hpp, shared with the tolerance labeller).
//   3. Number. Walking its pixels in raster order, a band gives each root (out[i] == i + 1) the next
//      number and every other pixel the number already written at its parent's pixel, which comes
//      earlier. With several bands, the roots each band holds (counted per row during the scan and
//      the seam step, so no pass is spent on it) give by a prefix where each band's numbers start.
// Bands never share a write outside the seam step and every choice depends on the picture only,
// so the labels are the same for every thread count. The choices between algorithms for one row
// (a row of 5-bit codes or one "same as above" bit a pixel in the scan; numbering run by run or
// by looking up the row above) are switches (src/cpu/tuning.hpp) that never
// change the labels; the benchmark turns them off one at a time.
//
// Pictures whose rows are mostly long runs (drawings) take another path, cpu/run_rows.hpp
// (Switches::run_length): the same three steps over runs kept outside the label image, which is
// then written once.
#include "cpu/label_cpu.hpp"

#include <algorithm>
#include <atomic>
#include <vector>

#include "cpu/binary_runs.hpp"
#include "cpu/neighbour_code.hpp"
#include "cpu/row_keys.hpp"
#include "cpu/run_rows.hpp"
#include "cpu/simd.hpp"
#include "cpu/tolerance_cpu.hpp"
#include "cpu/band_numbering.hpp"
#include "cpu/band_phases.hpp"

namespace cclabel::cpu {
namespace {

struct Band : BandRoots {
    /// Per row: 0 noisy; 1 mostly long stretches of one label (then numbering caches the last
    /// label); 2 as 1, and at least half the row takes the labels above (then numbering looks up).
    std::vector<std::uint8_t> stretchy_rows;
};

template <PixelFormat F, int Conn>
void scan_band(const detail::Request& r, const Switches& sw, Band& b, std::uint32_t* out) {
    static constexpr CodeTable tab = make_code_table<Conn>();
    const auto w = std::uint32_t(r.width);
    const Forest forest{out};
    std::vector<std::uint32_t> keys_prev(w), keys_cur(w), none(std::size_t(w) + 1, 0);
    std::vector<std::uint8_t> code(w);
    std::vector<std::uint8_t>& runs = b.stretchy_rows;
    runs.assign(std::size_t(b.y1 - b.y0), 0);
    b.row_roots.assign(std::size_t(b.y1 - b.y0), 0);
#if CCLABEL_X86_SIMD
    static const bool avx2 = __builtin_cpu_supports("avx2");
#endif
    bool predicted_stretchy = false;  // see Switches::predict_stretchy
    // The row before was mostly stretches that take the labels above (not fresh labels, as on noise).
    bool predicted_up = false;
    std::vector<std::uint8_t> up_bits(sw.up_mask_scan ? std::size_t(w) / 8 + 16 : 0), bg_bits(up_bits.size());
    auto unite = [&](std::uint32_t a, std::uint32_t c) {
        if (const std::uint32_t hung = forest.unite(a, c)) --b.row_roots[std::size_t((hung - 1) / w - b.y0)];
    };
    for (std::int64_t y = b.y0; y < b.y1; ++y) {
        const std::uint32_t* kc = keys_cur.data();
        const std::uint32_t* kp = keys_prev.data();
        const bool above = y > b.y0;
        std::uint8_t* cd = code.data();
        // Switches::up_mask_scan: after a stretchy row, no row of codes; see below.
        const bool mask_row = predicted_stretchy && predicted_up && sw.up_mask_scan && above && w > 2;
#if CCLABEL_X86_SIMD
        if (F == PixelFormat::RGB8 && mask_row && avx2) {  // keys and bits in one pass
            simd::rgb8_keys_eq_bits_avx2(r.row(y), kp, keys_cur.data(), w, r.has_background, r.background_key,
                                         up_bits.data(), bg_bits.data());
        } else
#endif
        {
            load_row_keys<F>(r.row(y), w, keys_cur.data());
            if (mask_row) simd::eq_bits(kp, kc, w, r.has_background, r.background_key, up_bits.data(), bg_bits.data());
        }
        if (mask_row) {
            cd[0] = pixel_code(kp, kc, 0, w, true, r.has_background, r.background_key);
        } else if (above && w > 2) {
            row_codes(kp, kc, w, r.has_background, r.background_key, cd);
            cd[0] = pixel_code(kp, kc, 0, w, true, r.has_background, r.background_key);
            cd[w - 1] = pixel_code(kp, kc, w - 1, w, true, r.has_background, r.background_key);
        } else {
            for (std::uint32_t x = 0; x < w; ++x) cd[x] = pixel_code(kp, kc, x, w, above, r.has_background, r.background_key);
        }
        std::uint32_t* o = out + std::size_t(y) * w;
        // The fresh label of pixel x of this row is first + x (indices fit: at most 2^32 - 1 pixels).
        const auto first = std::uint32_t(std::uint64_t(y) * w + 1);
        // Labels of the row above; op[w] is read at the row end but never used (its code bit is 0):
        // it is this row's first label, or the spare zero of `none`.
        const std::uint32_t* op = above ? o - w : none.data();
        std::uint32_t cand[6] = {0, 0, 0, 0, 0, 0};  // indexed by Source
        // Labels opened in this row (unions may take from the row's count first: unsigned wrap-around
        // makes the sum right all the same).
        std::uint32_t fresh = 0;
        auto step = [&](std::uint32_t x, std::uint8_t c) {
            fresh += tab.fresh[c];
            cand[kFresh] = first + x;
            cand[kFromU] = op[x];
            cand[kFromUR] = op[x + 1];
            const std::uint32_t lab = cand[tab.source[c]];
            if (tab.join[c] != kFresh) [[unlikely]] {
                const std::uint32_t j = cand[tab.join[c]];
                if (j != lab) unite(lab, j);
            }
            o[x] = lab;
            cand[kFromL] = lab;
        };
        cand[kFromUL] = 0;
        step(0, cd[0]);
        if (mask_row) {
            // One bit a pixel says "same key as above, not background" (and one "background"):
            // stretches of either are found a word at a time and take the labels above (or 0);
            // every other pixel computes its code on the spot and goes through the table.
            const std::uint8_t* ub = up_bits.data();
            const std::uint8_t* gb = bg_bits.data();
            const std::uint32_t bgk = r.background_key;
            const std::uint32_t bgm = r.has_background ? 1u : 0u;
            std::uint32_t x = 1, breaks = 0, up_px = 0;
            while (x < w) {
                ++breaks;
                std::uint32_t e;
                if ((ub[x / 8] >> (x % 8)) & 1u) {
                    e = simd::ones_end(ub, x + 1);
                    up_px += e - x;
                    simd::copy_stretch(op, o, x, e, w);
                    if constexpr (Conn == 4) {  // L and U are not neighbours of each other here
                        for (std::uint32_t i = x; i < e; ++i)
                            if (kc[i - 1] == kc[i] && o[i - 1] != o[i]) unite(o[i - 1], o[i]);
                    }
                } else if ((gb[x / 8] >> (x % 8)) & 1u) {
                    e = simd::ones_end(gb, x + 1);
                    std::fill(o + x, o + e, 0u);
                } else {
                    std::uint8_t c;
                    if (x + 1 < w) {
                        const std::uint32_t k = kc[x];
                        c = std::uint8_t(std::uint32_t(kc[x - 1] == k) | (std::uint32_t(kp[x - 1] == k) << 1) |
                                         (std::uint32_t(kp[x] == k) << 2) | (std::uint32_t(kp[x + 1] == k) << 3) |
                                         ((bgm & std::uint32_t(k == bgk)) << 4));
                    } else {
                        c = pixel_code(kp, kc, x, w, true, r.has_background, bgk);
                    }
                    cand[kFromUL] = op[x - 1];
                    step(x, c);
                    ++x;
                    if (sw.left_runs) {
                        // Switches::left_runs: pixels with the left neighbour's key and neither the
                        // one above nor above-right (nor background) take the left label, no table.
                        while (x < w) {
                            const std::uint32_t k = kc[x];
                            if (k != kc[x - 1] || kp[x] == k || (x + 1 < w && kp[x + 1] == k) || (bgm && k == bgk))
                                break;
                            o[x] = cand[kFromL];
                            ++x;
                        }
                    }
                    continue;
                }
                cand[kFromL] = o[e - 1];
                x = e;
            }
            runs[std::size_t(y - b.y0)] = up_px * 2 >= w ? 2 : 1;
            predicted_stretchy = breaks * 4 < w;
            predicted_up = up_px * 2 >= w;
            b.row_roots[std::size_t(y - b.y0)] += fresh;
            std::swap(keys_prev, keys_cur);
            continue;
        }
        // Stretches of three common codes skip the table: drawings are mostly pixels that take the
        // label above (paper, strokes), or background; noise is mostly pixels that open a label.
        // A row that is mostly breaks (noise) goes through the table pixel by pixel instead.
        // predicted: the row before was stretchy and broke rarely (counted by its own loop below);
        // otherwise this row's breaks are counted by a pass of their own.
        const bool stretchy = predicted_stretchy ? true : stretch_breaks(cd, w) * 4 < w;
        runs[std::size_t(y - b.y0)] = stretchy;
        predicted_stretchy = predicted_up = false;
        if (!stretchy) {
            for (std::uint32_t x = 1; x < w; ++x) {
                cand[kFromUL] = op[x - 1];
                step(x, cd[x]);
            }
            b.row_roots[std::size_t(y - b.y0)] += fresh;
            std::swap(keys_prev, keys_cur);
            continue;
        }
        std::uint32_t x = 1, breaks = 0, up_px = 0;
        while (x < w) {
            ++breaks;
            const std::uint8_t c = cd[x];
            std::uint32_t e;
            if ((c & (kU | kBackground)) == kU) {
                e = stretch_end(cd, x + 1, w, kU | kBackground, kU);
                up_px += e - x;
                simd::copy_stretch(op, o, x, e, w);
                if constexpr (Conn == 4) {  // L and U are not neighbours of each other here
                    for (std::uint32_t i = x; i < e; ++i)
                        if ((cd[i] & kL) && o[i - 1] != o[i]) unite(o[i - 1], o[i]);
                }
            } else if (c & kBackground) {
                e = stretch_end(cd, x + 1, w, kBackground, kBackground);
                std::fill(o + x, o + e, 0u);
            } else if (c == 0) {
                e = stretch_end(cd, x + 1, w, 0xFF, 0);
                for (std::uint32_t i = x; i < e; ++i) o[i] = first + i;
                fresh += e - x;
            } else {
                cand[kFromUL] = op[x - 1];
                step(x, c);
                ++x;
                continue;
            }
            cand[kFromL] = o[e - 1];
            x = e;
        }
        predicted_stretchy = sw.predict_stretchy && breaks * 4 < w;
        predicted_up = up_px * 2 >= w;
        if (above && predicted_up) runs[std::size_t(y - b.y0)] = 2;
        b.row_roots[std::size_t(y - b.y0)] += fresh;
        std::swap(keys_prev, keys_cur);
    }
}

// Unites the labels of touching same-keyed pixels across the seam above band @p below; appends the
// roots it hung under other roots to @p hung.
template <PixelFormat F, int Conn>
void merge_seam(const detail::Request& r, const Forest& forest, const Band& below, std::vector<std::uint32_t>& hung) {
    const auto w = std::uint32_t(r.width);
    std::vector<std::uint32_t> ka(w), kb(w);
    load_row_keys<F>(r.row(below.y0 - 1), w, ka.data());
    load_row_keys<F>(r.row(below.y0), w, kb.data());
    merge_seam<Conn>(forest, w, below.y0, [&](std::uint32_t x, std::uint32_t q) { return ka[q] == kb[x]; }, hung);
}

// Numbers the pixels [begin, end) of one row, continuing from @p n (see number_pixels).
template <bool External, bool Stretchy>
void number_row(std::uint64_t begin, std::uint64_t end, std::uint64_t band_begin, std::uint32_t* out, std::uint32_t& n,
                const SeamRoots& ext) {
    // On stretchy rows runs of one provisional label take the number just given (a branch that
    // predicts well there); elsewhere every pixel goes through selects.
    std::uint32_t last_v = 0, last_number = 0;
    for (std::uint64_t i = begin; i < end; ++i) {
        const std::uint32_t v = out[i];
        if constexpr (Stretchy) {
            if (v == last_v) {
                i = simd::replace_run(out, i, end, v, last_number) - 1;
                continue;
            }
            if (v == std::uint32_t(i + 1)) {  // roots in a row: pictures with many colours
                i = simd::number_roots(out, i, end, n) - 1;
                last_v = std::uint32_t(i + 1);
                last_number = n;
                continue;
            }
            last_v = v;
        }
        if constexpr (External) {
            if (v <= band_begin && v != 0) [[unlikely]] {
                out[i] = last_number = ext.number_of(v);
                continue;
            }
        }
        const std::uint32_t is_root = v == std::uint32_t(i + 1);
        n += is_root;
        // For a background pixel (v = 0) this reads the pixel itself, which holds 0.
        const std::uint32_t parent_number = out[v != 0 ? std::uint64_t(v - 1) : i];
        out[i] = last_number = is_root ? n : parent_number;
    }
}

#if CCLABEL_X86_SIMD
// Numbers a stretchy row that has a row above in its band (Switches::number_from_above). @p prov
// holds the row above's provisional labels on entry and this row's on return. Eight pixels at a
// time: a pixel whose provisional label equals the one above it takes the number already written
// above it (one label, one number), as does one whose label is the last one numbered by the slow
// path; the other pixels of the block go one by one (a root takes the next number, any other label
// the number its parent's pixel already holds, and parents come earlier in raster order).
template <bool External>
__attribute__((target("avx2"))) void number_row_above_avx2(std::uint64_t begin, std::uint64_t end,
                                                           std::uint64_t band_begin, std::uint64_t w, std::uint32_t* out,
                                                           std::uint32_t* __restrict prov, std::uint32_t& n,
                                                           const SeamRoots& ext) {
    std::uint32_t last_v = 0, last_number = 0;  // label 0 is background, number 0
    auto slow = [&](std::uint64_t i) {
        const std::uint32_t v = out[i];
        std::uint32_t number;
        if (v == last_v) {
            number = last_number;
        } else if (v == std::uint32_t(i + 1)) {
            number = ++n;
        } else if (v == 0) {
            number = 0;
        } else if (External && v <= band_begin) [[unlikely]] {
            number = ext.number_of(v);
        } else {
            number = out[v - 1];
        }
        last_v = v;
        last_number = number;
        out[i] = number;
    };
    std::uint64_t i = begin;
    std::uint32_t* p = prov;
    for (; i + 8 <= end; i += 8, p += 8) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(out + i));
        const __m256i up = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
        const __m256i up_number = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(out + i - w));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x);
        const __m256i eq_up = _mm256_cmpeq_epi32(x, up);
        if (_mm256_movemask_ps(_mm256_castsi256_ps(eq_up)) == 0xFF) {  // the common block: all as above
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), up_number);
            continue;
        }
        const __m256i eq_last = _mm256_cmpeq_epi32(x, _mm256_set1_epi32(int(last_v)));
        __m256i y = _mm256_blendv_epi8(x, _mm256_set1_epi32(int(last_number)), eq_last);
        y = _mm256_blendv_epi8(y, up_number, eq_up);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), y);
        unsigned rest = ~unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(eq_up, eq_last)))) & 0xFFu;
        while (rest) {
            slow(i + unsigned(__builtin_ctz(rest)));
            rest &= rest - 1;
        }
    }
    for (; i < end; ++i, ++p) {
        const std::uint32_t v = out[i], up = *p;
        *p = v;
        if (v == up)
            out[i] = out[i - w];
        else
            slow(i);
    }
}
#endif

// Numbers the pixels of a band: roots get first_label + 1, + 2, ...; every other pixel the number
// its parent's pixel already holds (the parent comes earlier), or, for a root of an earlier band,
// that root's number. Returns the band's last number.
template <bool External>
std::uint32_t number_pixels(const Band& b, const Switches& sw, std::uint64_t w, std::uint32_t* out,
                            const SeamRoots& ext) {
    std::uint32_t n = b.first_label;
    bool from_above = false;
#if CCLABEL_X86_SIMD
    static const bool avx2 = __builtin_cpu_supports("avx2");
    from_above = sw.number_from_above && avx2;
#else
    (void)sw;
#endif
    // With from_above: the provisional labels of the row before, kept before numbering overwrites them.
    std::vector<std::uint32_t> prov(from_above ? w : 0);
    for (std::int64_t y = b.y0; y < b.y1; ++y) {
        const std::uint64_t begin = std::uint64_t(y) * w, end = begin + w;
        const bool stretchy = b.stretchy_rows[std::size_t(y - b.y0)];
#if CCLABEL_X86_SIMD
        if (from_above) {
            if (b.stretchy_rows[std::size_t(y - b.y0)] == 2 && y > b.y0) {
                number_row_above_avx2<External>(begin, end, b.begin, w, out, prov.data(), n, ext);
                continue;
            }
            if (y + 1 < b.y1 && b.stretchy_rows[std::size_t(y + 1 - b.y0)] == 2)  // the next row looks up
                std::copy(out + begin, out + end, prov.begin());
        }
#endif
        if (stretchy)
            number_row<External, true>(begin, end, b.begin, out, n, ext);
        else
            number_row<External, false>(begin, end, b.begin, out, n, ext);
    }
    return n;
}

std::uint32_t number_band(const Band& b, const Switches& sw, std::uint64_t w, std::uint32_t* out,
                          const SeamRoots& ext) {
    return ext.empty() || b.begin == 0 ? number_pixels<false>(b, sw, w, out, ext) : number_pixels<true>(b, sw, w, out, ext);
}

/// Switches::run_length: mean run length of up to 64 rows spread over the picture, at least this
/// many pixels, and the runs path labels it. Noise (runs of 1-2 pixels) stays on the pixel path.
constexpr std::uint64_t kRunLengthMin = 4;

/// Runs the sampled rows hold, and the runs the whole picture is expected to hold (0: use pixels).
/// Masks take the runs at any run length with Switches::binary_runs.
template <PixelFormat F>
std::uint64_t expected_runs(const detail::Request& r, const Switches& sw) {
    const std::uint64_t min_length = F == PixelFormat::Binary8 && sw.binary_runs ? 1 : kRunLengthMin;
    const auto w = std::uint32_t(r.width);
    if (r.pixels() >= 0xFFFFFFFFull - 1 || w < 16) return 0;  // run indices are 32-bit
    const std::int64_t samples = std::min<std::int64_t>(64, r.height);
    std::vector<std::uint32_t> keys(w);
    std::uint64_t starts = 0;
    for (std::int64_t i = 0; i < samples; ++i) {
        load_row_keys<F>(r.row(r.height * i / samples + (r.height / samples) / 2), w, keys.data());
        starts += 1;
        for (std::uint32_t x = 1; x < w; ++x) starts += keys[x] != keys[x - 1];
    }
    if (starts * min_length > std::uint64_t(samples) * w) return 0;
    return starts * std::uint64_t(r.height) / std::uint64_t(samples);
}

/// Bands for @p threads threads on @p height rows (see Switches::shared_bands).
int band_count(int threads, std::int64_t height, const Switches& sw) {
    const int one_each = int(std::min<std::int64_t>(threads, height));
    if (!sw.shared_bands || one_each <= 1) return one_each;
    const std::int64_t most = std::int64_t(threads) * std::max(1, sw.bands_per_thread);
    return int(std::max<std::int64_t>(one_each, std::min<std::int64_t>(most, height / std::max<std::int64_t>(1, sw.min_band_rows))));
}

/// Runs @p first on every band, then @p completion once, then @p then on every band, over up to
/// @p threads threads that take the bands in turn (band_phases.hpp).
template <typename Completion, typename First, typename Then>
void over_bands(int threads, int bands, Completion&& completion, First&& first, Then&& then) {
    band_phases(threads, bands, first, completion, then);
}

template <PixelFormat F, int Conn>
std::uint32_t label_runs(const detail::Request& r, const Switches& sw, std::uint64_t expected, std::uint32_t* out) {
    // One band a thread: shared bands made the drawings slower here (bench/RESULTS.md, 0c95634).
    const int nb = int(std::min<std::int64_t>(r.threads, r.height));
    const auto w = std::uint64_t(r.width);
    std::vector<runs::Band> bands(static_cast<std::size_t>(nb));
    for (int i = 0; i < nb; ++i) {
        runs::Band& b = bands[std::size_t(i)];
        b.y0 = r.height * i / nb;
        b.y1 = r.height * (i + 1) / nb;
    }
    // 25% above the sampled estimate, so that the arrays rarely grow.
    auto reserve = [&](const runs::Band& b) { return std::size_t(expected * std::uint64_t(b.y1 - b.y0) / std::uint64_t(r.height) * 5 / 4); };
    const bool stream = sw.stream_stores && w * std::uint64_t(r.height) * 4 >= sw.stream_min_bytes;
    std::uint32_t total = 0;  // one band: no seams, join_bands only counts and work(0) runs here
    over_bands(
        int(r.threads), nb, [&]() noexcept { total = runs::join_bands<Conn>(bands, w); },
        [&](int bi) {
            runs::Band& b = bands[std::size_t(bi)];
            if constexpr (F == PixelFormat::Binary8)
                if (sw.binary_runs) return runs::scan_binary<Conn>(r, b, reserve(b));
            runs::scan<F, Conn>(r, sw, b, reserve(b));
        },
        [&](int bi) { runs::number_and_write(bands[std::size_t(bi)], w, out, stream); });
    return total;
}

template <PixelFormat F, int Conn>
std::uint32_t label_impl(const detail::Request& r, const Switches& sw, std::uint32_t* out) {
    if (sw.run_length)
        if (const std::uint64_t expected = expected_runs<F>(r, sw)) return label_runs<F, Conn>(r, sw, expected, out);
    const int nb = band_count(int(r.threads), r.height, sw);
    const auto w = std::uint64_t(r.width);
    std::vector<Band> bands = split_bands<Band>(nb, r.height, w);
    const Forest forest{out};
    if (nb == 1) {
        scan_band<F, Conn>(r, sw, bands[0], out);
        return number_band(bands[0], sw, w, out, {});
    }

    SeamRoots ext;
    std::uint32_t total = 0;
    // One thread, between the scan and the numbering.
    auto after_scan = [&]() noexcept {
        std::vector<std::uint32_t> hung;
        for (int i = 1; i < nb; ++i) merge_seam<F, Conn>(r, forest, bands[std::size_t(i)], hung);
        total = settle_seams(bands, forest, w, hung, ext);
    };
    over_bands(
        int(r.threads), nb, after_scan, [&](int bi) { scan_band<F, Conn>(r, sw, bands[std::size_t(bi)], out); },
        [&](int bi) { number_band(bands[std::size_t(bi)], sw, w, out, ext); });
    return total;
}

}  // namespace

std::uint32_t label(const detail::Request& r, std::uint32_t* out, const Switches& switches) {
    // Binary8's foreground is one value, so a tolerance changes nothing there.
    if (r.tolerance > 0 && r.format != PixelFormat::Binary8) return label_tolerance(r, out);
    return detail::dispatch_format(r.format, [&]<PixelFormat F>() {
        return r.connectivity == 4 ? label_impl<F, 4>(r, switches, out) : label_impl<F, 8>(r, switches, out);
    });
}

bool uses_run_length(const detail::Request& r, const Switches& switches) {
    if (!switches.run_length || r.pixels() == 0) return false;
    return detail::dispatch_format(r.format, [&]<PixelFormat F>() { return expected_runs<F>(r, switches) != 0; });
}

std::uint32_t label(const ImageView& image, std::uint32_t* out, const Options& options, const Switches& switches) {
    const detail::Request r = detail::make_request(image, out, options);
    if (r.pixels() == 0) return 0;
    return label(r, out, switches);
}

}  // namespace cclabel::cpu
