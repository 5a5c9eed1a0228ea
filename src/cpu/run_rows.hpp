#pragma once
// The CPU labeller's run-length path (Switches::run_length), for pictures whose rows are mostly
// long runs of one key (drawings, scans, masks).
//
//   1. Scan. Each band decodes a row into keys, finds where a new key starts (eight pixels a
//      compare, the starts packed by a shuffle table: no branch a pixel) and keeps the row as runs:
//      a start and a union-find entry each, in arrays of the band's own, not in the label image.
//      A run unites with the runs of the row above that touch it and hold its key (two pointers
//      walking both rows). Run 0 of a band stands for the background. Unions hang the larger root
//      under the smaller, and runs are indexed in raster order, so every set is rooted at its first
//      run and every parent comes before its child.
//   2. Seams (several bands). One thread unites the runs that touch across each band seam; a root
//      hung under another band's run is remembered (Band::hung), not written into the band's arrays.
//   3. Number and write. Walking its runs in order, a band gives each root the next number and
//      every other run the number its parent already holds (parents come first), then writes that
//      number over the run's pixels: the label image is written once and never read.
// Against the pixel path this saves the label image's second pass (read and rewrite), and the scan
// works a run at a time instead of a pixel at a time; on noise (runs of one or two pixels) the run
// arrays would cost more than they save, so label_cpu.cpp samples rows first (expected_runs).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/request.hpp"
#include "cpu/row_keys.hpp"
#include "cpu/simd.hpp"
#include "cpu/tuning.hpp"

namespace cclabel::cpu::runs {

/// A growable array of uninitialised 32-bit words (a std::vector would zero what the scan writes).
struct Words {
    std::unique_ptr<std::uint32_t[]> p;
    std::size_t cap = 0;
    /// Makes room for @p need words, keeping the first @p used.
    void reserve(std::size_t need, std::size_t used) {
        if (need <= cap) return;
        const std::size_t c = std::max(need, cap + cap / 2);
        auto q = std::make_unique_for_overwrite<std::uint32_t[]>(c);
        if (used) std::memcpy(q.get(), p.get(), used * 4);
        p = std::move(q);
        cap = c;
    }
    std::uint32_t* data() const { return p.get(); }
};

inline constexpr unsigned kBlockShift = 8;  ///< roots are counted per block of 256 runs

struct Band {
    std::int64_t y0 = 0, y1 = 0;
    Words parent;            ///< union-find parent (band-local run index); numbers in step 3
    /// One bit a pixel (LSB first), set where a run starts; a row takes `bit_stride` bytes.
    std::unique_ptr<std::uint8_t[]> bits;
    std::size_t bit_stride = 0;
    /// rows + 1: index of each row's first run; the last, the band's runs (run 0 included).
    std::vector<std::uint32_t> row_first;
    std::vector<std::uint32_t> block_roots;  ///< roots per block of 2^kBlockShift runs (for the seams)
    /// Starts and keys of the runs of the band's first and last row (for the seams).
    std::vector<std::uint32_t> first_starts, first_keys, last_starts, last_keys;
    std::uint32_t first_label = 0;  ///< numbers of this band's roots start after this
    /// Roots of this band hung under a run of an earlier band by the seams: band-local root ->
    /// global run index (see join_bands); sorted with their numbers for step 3.
    std::unordered_map<std::uint32_t, std::uint32_t> hung;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> hung_numbers;

    /// Before a scan of a row @p w pixels wide: the arrays, sized for @p expected_runs.
    void start(std::uint32_t w, std::size_t expected_runs) {
        const auto rows = std::size_t(y1 - y0);
        row_first.assign(rows + 1, 0);
        parent.reserve(expected_runs + w + 16, 0);
        block_roots.assign((parent.cap >> kBlockShift) + 1, 0);
        bit_stride = (std::size_t(w) + 7) / 8;
        bits = std::make_unique_for_overwrite<std::uint8_t[]>(bit_stride * rows + 8);
        parent.data()[0] = 0;  // run 0: the background, its own root, never counted
    }
    /// Row @p yr of the band: its @p nc runs come after the first @p n_runs; makes room for them
    /// (and the 16 words a scan may write past).
    void begin_row(std::size_t yr, std::uint32_t n_runs, std::uint32_t nc, std::uint32_t w) {
        row_first[yr] = n_runs;
        if (parent.cap >= std::size_t(n_runs) + nc + 16) return;
        parent.reserve(std::size_t(n_runs) + w + 16, n_runs);
        block_roots.resize((parent.cap >> kBlockShift) + 1, 0);
    }
};

/// kPack[m]: the set bits of m, packed (lane i holds the index of the i-th set bit).
/// kExpand[m]: for a block of eight pixels whose run starts are the bits of m, lane t holds the
/// run of pixel t counted from the run of the pixel before the block, less m & 1 (so that lanes
/// stay within 0..7; the caller adds m & 1 to its base).
struct Tables {
    alignas(32) std::array<std::array<std::uint32_t, 8>, 256> pack{}, expand{};
};
inline constexpr Tables kTables = [] {
    Tables t;
    for (unsigned m = 0; m < 256; ++m) {
        unsigned k = 0;
        for (unsigned i = 0; i < 8; ++i) {
            if (m >> i & 1u) t.pack[m][k++] = i;
            t.expand[m][i] = unsigned(std::popcount(m & ((2u << i) - 1u))) - (m & 1u);
        }
    }
    return t;
}();

/// Run starts of a row of keys: each start x (kc[x] != kc[x - 1]; kc[-1] must differ from kc[0])
/// goes to @p cs and its key to @p ck, and bit x of @p bits is set (the other bits of its bytes
/// are cleared); returns how many. Reads up to kc[n + 7]; writes up to 8 words past the count.
inline std::uint32_t run_starts_scalar(const std::uint32_t* kc, std::uint32_t n, std::uint32_t* cs, std::uint32_t* ck,
                                       std::uint8_t* bits) {
    std::uint32_t nc = 0;
    std::memset(bits, 0, (n + 7) / 8);
    for (std::uint32_t x = 0; x < n; ++x) {
        const bool st = kc[x] != kc[std::ptrdiff_t(x) - 1];  // kc[-1] at x = 0, not kc[2^32 - 1]
        cs[nc] = x;
        ck[nc] = kc[x];
        nc += st;
        bits[x / 8] |= std::uint8_t(unsigned(st) << (x % 8));
    }
    return nc;
}

#if CCLABEL_X86_SIMD
/// One block of eight pixels from x on, keys @p a, starts @p m (bit t: pixel x + t starts a run):
/// appends the starts and their keys at @p nc, writes the bits; returns the new count.
__attribute__((target("avx2,popcnt"))) inline std::uint32_t pack_starts_avx2(__m256i a, unsigned m, std::uint32_t x,
                                                                              std::uint32_t* cs, std::uint32_t* ck,
                                                                              std::uint8_t* bits, std::uint32_t nc) {
    bits[x / 8] = std::uint8_t(m);
    const __m256i idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(kTables.pack[m].data()));
    const __m256i xs = _mm256_add_epi32(_mm256_set1_epi32(int(x)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(cs + nc), _mm256_permutevar8x32_epi32(xs, idx));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ck + nc), _mm256_permutevar8x32_epi32(a, idx));
    return nc + unsigned(__builtin_popcount(m));
}

__attribute__((target("avx2,popcnt"))) inline std::uint32_t run_starts_avx2(const std::uint32_t* kc, std::uint32_t n,
                                                                             std::uint32_t* cs, std::uint32_t* ck,
                                                                             std::uint8_t* bits) {
    std::uint32_t nc = 0;
    for (std::uint64_t x = 0; x < n; x += 8) {  // 64-bit: a row of nearly 2^32 pixels must not wrap
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kc + x));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kc + x - 1));
        unsigned m = ~unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b)))) & 0xFFu;
        if (x + 8 > n) m &= (1u << (n - x)) - 1u;
        nc = pack_starts_avx2(a, m, std::uint32_t(x), cs, ck, bits, nc);
    }
    return nc;
}

/// run_starts straight from a row of RGB8 pixels (no row of keys): each pixel's left neighbour's key
/// comes from the same eight-pixel decode, shifted by one lane.
__attribute__((target("avx2,popcnt"))) inline std::uint32_t rgb8_run_starts_avx2(const std::uint8_t* row, std::uint32_t n,
                                                                                  std::uint32_t* cs, std::uint32_t* ck,
                                                                                  std::uint8_t* bits) {
    const __m256i rot = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6);
    std::uint32_t nc = 0, x = 0;
    // Lane 7 holds the key of the pixel before the block (pixel 0: differs from pixel 0's key).
    using T = detail::PixelTraits<PixelFormat::RGB8>;
    __m256i before = _mm256_set1_epi32(int(~T::key(row)));
    for (; x + 11 <= n; x += 8) {  // the 32-byte load stays within the row
        const __m256i a = simd::rgb8_keys8_avx2(row + std::size_t(x) * 3);
        const __m256i shifted = _mm256_permutevar8x32_epi32(a, rot);
        const __m256i b = _mm256_blend_epi32(shifted, before, 1);
        before = shifted;
        const unsigned m = ~unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b)))) & 0xFFu;
        nc = pack_starts_avx2(a, m, x, cs, ck, bits, nc);
    }
    std::uint32_t last = std::uint32_t(_mm256_cvtsi256_si32(before));  // the key of pixel x - 1
    std::memset(bits + x / 8, 0, (n - x + 7) / 8);
    for (; x < n; ++x) {
        const std::uint32_t k = T::key(row + std::size_t(x) * 3);
        const bool st = k != last;
        cs[nc] = x;
        ck[nc] = k;
        nc += st;
        bits[x / 8] |= std::uint8_t(unsigned(st) << (x % 8));
        last = k;
    }
    return nc;
}
#endif

/// Writes a row of labels from its start bits, from pixel @p x on: pixel x takes nums[k], k the
/// number of starts at or before x (nums[0]: the run before the row, never taken since pixel 0
/// starts a run; from x > 0, @p nums already counts the starts before x).
inline void expand_row_scalar(const std::uint8_t* bits, const std::uint32_t* nums, std::uint32_t n, std::uint32_t* o,
                              std::uint32_t x = 0) {
    for (; x < n; ++x) {
        nums += (bits[x / 8] >> (x % 8)) & 1u;
        o[x] = *nums;
    }
}

#if CCLABEL_X86_SIMD
/// expand_row_scalar eight pixels a shuffle of the eight numbers they can take. With @p room the
/// last block may write up to 7 pixels past @p n.
/// With @p stream (a row that starts on 16 bytes) the blocks are non-temporal stores: the label
/// image is written once and not read again here, so its lines need not be read in first
/// (Switches::stream_stores); the caller fences before other threads read it.
__attribute__((target("avx2,popcnt"))) inline void expand_row_avx2(const std::uint8_t* bits, const std::uint32_t* nums,
                                                                    std::uint32_t n, std::uint32_t* o, bool room,
                                                                    bool stream = false) {
    std::uint32_t x = 0;
    if (stream && (reinterpret_cast<std::uintptr_t>(o) & 15u) == 0) {
        // No write past the row: a plain store into the next row could land before these.
        for (const std::uint32_t stop = n & ~7u; x < stop; x += 8) {
            const unsigned m = bits[x / 8];
            const __m256i idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(kTables.expand[m].data()));
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(nums + (m & 1u)));
            const __m256i l = _mm256_permutevar8x32_epi32(v, idx);
            _mm_stream_si128(reinterpret_cast<__m128i*>(o + x), _mm256_castsi256_si128(l));
            _mm_stream_si128(reinterpret_cast<__m128i*>(o + x + 4), _mm256_extracti128_si256(l, 1));
            nums += unsigned(__builtin_popcount(m));
        }
        expand_row_scalar(bits, nums, n, o, x);
        return;
    }
    const std::uint32_t stop = room ? n : n & ~7u;
    for (; x < stop; x += 8) {
        const unsigned m = bits[x / 8];
        const __m256i idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(kTables.expand[m].data()));
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(nums + (m & 1u)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + x), _mm256_permutevar8x32_epi32(v, idx));
        nums += unsigned(__builtin_popcount(m));
    }
    expand_row_scalar(bits, nums, n, o, x);
}

inline const bool kAvx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#endif

// The helpers below take V: true in the AVX2 copies of the row loops (scan and number_and_write are
// compiled twice, so that the AVX2 helpers inline), false in the portable ones.
#if CCLABEL_X86_SIMD
#define CCLABEL_IF_AVX2(V, call) \
    if constexpr (V) return call
#else
#define CCLABEL_IF_AVX2(V, call)
#endif

template <bool V>
inline std::uint32_t run_starts(const std::uint32_t* kc, std::uint32_t n, std::uint32_t* cs, std::uint32_t* ck,
                                std::uint8_t* bits) {
    CCLABEL_IF_AVX2(V, run_starts_avx2(kc, n, cs, ck, bits));
    return run_starts_scalar(kc, n, cs, ck, bits);
}

/// Root of run @p x, halving the path on the way.
inline std::uint32_t find(std::uint32_t* p, std::uint32_t x) {
    while (p[x] != x) {
        const std::uint32_t g = p[p[x]];
        p[x] = g;
        x = g;
    }
    return x;
}

/// Unites run @p above (of the row above) with run @p me, whose set is @p lab so far (@p me
/// itself while no run above has joined it): the larger root goes under the smaller, and @p lab
/// becomes the smaller.
inline void join_run(std::uint32_t* par, std::uint32_t* blk, std::uint32_t above, std::uint32_t me, std::uint32_t& lab) {
    const std::uint32_t root = find(par, above);
    if (lab == me) {
        lab = root;
    } else if (root != lab) {
        const std::uint32_t lo = std::min(root, lab), hi = std::max(root, lab);
        par[hi] = lo;
        --blk[hi >> kBlockShift];
        lab = lo;
    }
}

#if CCLABEL_X86_SIMD
/// How many runs from cs[0], ck[0] on repeat the runs above from ps[0], pk[0] (same start, end and
/// key), up to eight (cs[0..8], ps[0..8] are read: starts and ends).
__attribute__((target("avx2"))) inline unsigned same_runs_avx2(const std::uint32_t* cs, const std::uint32_t* ck,
                                                                const std::uint32_t* ps, const std::uint32_t* pk) {
#define CCLABEL_LD(p) _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
    const __m256i eq = _mm256_and_si256(
        _mm256_and_si256(_mm256_cmpeq_epi32(CCLABEL_LD(cs), CCLABEL_LD(ps)), _mm256_cmpeq_epi32(CCLABEL_LD(cs + 1), CCLABEL_LD(ps + 1))),
        _mm256_cmpeq_epi32(CCLABEL_LD(ck), CCLABEL_LD(pk)));
#undef CCLABEL_LD
    return unsigned(__builtin_ctz(~unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(eq)))));
}
#endif

template <bool V>
inline unsigned same_runs(const std::uint32_t* cs, const std::uint32_t* ck, const std::uint32_t* ps,
                          const std::uint32_t* pk) {
    CCLABEL_IF_AVX2(V, same_runs_avx2(cs, ck, ps, pk));
    unsigned t = 0;
    while (t < 8 && cs[t] == ps[t] && cs[t + 1] == ps[t + 1] && ck[t] == pk[t]) ++t;
    return t;
}

/// Bit t set: run t of the row above (of @p left, counted from the first that may touch) starts at
/// or before @p last and holds key @p k (reads eight starts and keys).
inline unsigned touch_mask_scalar(const std::uint32_t* ps, const std::uint32_t* pk, std::uint32_t left,
                                  std::uint32_t last, std::uint32_t k) {
    unsigned mk = 0;
    for (unsigned t = 0; t < 8 && t < left; ++t) mk |= unsigned(ps[t] <= last && pk[t] == k) << t;
    return mk;
}

#if CCLABEL_X86_SIMD
__attribute__((target("avx2"))) inline unsigned touch_mask_avx2(const std::uint32_t* ps, const std::uint32_t* pk,
                                                                 std::uint32_t left, std::uint32_t last, std::uint32_t k) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i st = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ps));
    const __m256i key = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pk));
    // Starts are below 2^31, so signed compares do.
    const __m256i late = _mm256_cmpgt_epi32(st, _mm256_set1_epi32(int(last)));
    const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(std::min<std::uint32_t>(left, 8))), lane);
    const __m256i hit = _mm256_and_si256(_mm256_andnot_si256(late, _mm256_cmpeq_epi32(key, _mm256_set1_epi32(int(k)))), valid);
    return unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(hit)));
}
#endif

template <bool V>
inline unsigned touch_mask(const std::uint32_t* ps, const std::uint32_t* pk, std::uint32_t left, std::uint32_t last,
                           std::uint32_t k) {
    CCLABEL_IF_AVX2(V, touch_mask_avx2(ps, pk, left, last, k));
    return touch_mask_scalar(ps, pk, left, last, k);
}

/// Scans the rows of band @p b into runs (step 1). @p expected_runs sizes the arrays at first.
template <PixelFormat F, int Conn, bool V>
[[gnu::always_inline]] inline void scan_body(const detail::Request& r, const Switches& sw, Band& b,
                                             std::size_t expected_runs) {
    const auto w = std::uint32_t(r.width);
    const auto rows = std::size_t(b.y1 - b.y0);
    std::vector<std::uint32_t> keys(std::size_t(w) + 16);
    std::uint32_t* kc = keys.data() + 8;  // kc[-1] is read
    std::vector<std::uint32_t> cs(std::size_t(w) + 24), ck(cs.size()), ps(cs.size()), pk(cs.size());
    b.start(w, expected_runs);
    std::uint32_t n_runs = 1, np = 0;
    const bool has_bg = r.has_background, blocks = sw.run_blocks, masks = sw.run_masks;
    const std::uint32_t bgk = r.background_key;
    constexpr std::uint32_t c4 = Conn == 4 ? 1u : 0u;
    for (std::int64_t y = b.y0; y < b.y1; ++y) {
        const std::size_t yr = std::size_t(y - b.y0);
        std::uint8_t* const bits = b.bits.get() + yr * b.bit_stride;
        std::uint32_t nc;
#if CCLABEL_X86_SIMD
        if constexpr (F == PixelFormat::RGB8 && V) {
            nc = rgb8_run_starts_avx2(r.row(y), w, cs.data(), ck.data(), bits);
        } else
#endif
        {
            load_row_keys<F>(r.row(y), w, kc);
            kc[-1] = ~kc[0];
            nc = run_starts<V>(kc, w, cs.data(), ck.data(), bits);
        }
        cs[nc] = w;
        b.begin_row(yr, n_runs, nc, w);
        std::uint32_t* const par = b.parent.data();
        std::uint32_t* const blk = b.block_roots.data();
        const std::uint32_t pbase = n_runs - np;  // index of the row above's first run
        std::uint32_t j = 0;
        for (std::uint32_t i = 0; i < nc;) {
            const std::uint32_t s = cs[i], e = cs[i + 1], k = ck[i], me = n_runs + i;
            if (has_bg && k == bgk) {
                par[me] = 0;
                ++i;
                continue;
            }
            std::uint32_t lab = me;
            if (np) {
                // Runs of the row above touching [s, e): they end at or after s (8-connectivity: the
                // pixel above-left counts) and start at or before e (above-right).
                while (ps[j + 1] < s + c4) ++j;
                // The common run: the same start, end and key as a run above, which then is the
                // only run above with its key to touch it (its neighbours hold other keys). It
                // takes that run's parent (not its root: numbering needs only an earlier run of
                // the same set); with run_blocks so do the runs after it that repeat the row above.
                const std::uint32_t m0 = j + (ps[j + 1] == s);
                if (ps[m0] == s && ps[m0 + 1] == e && pk[m0] == k) {
                    if (blocks) {
                        const unsigned t = same_runs<V>(cs.data() + i, ck.data() + i, ps.data() + m0, pk.data() + m0);
                        // The t words that matter come from the row above, before `me`; the eight
                        // copied can overlap the destination (rows of few runs), hence memmove. Past
                        // t: later runs overwrite.
                        std::memmove(par + me, par + pbase + m0, 32);
                        i += t;
                        j = m0 + t - 1;
                    } else {
                        par[me] = par[pbase + m0];
                        ++i;
                    }
                    continue;
                }
                auto join = [&](std::uint32_t m) { join_run(par, blk, pbase + m, me, lab); };
                if (masks && (np - j <= 8 || ps[j + 8] + c4 > e)) {
                    // Switches::run_masks: the (at most eight) runs above that touch, as a bit
                    // mask of those holding the key; one of them (the usual case) gives its
                    // parent, as above, and only two or more need their roots and a union.
                    unsigned mk = touch_mask<V>(ps.data() + j, pk.data() + j, np - j, e - c4, k);
                    if (mk && !(mk & (mk - 1))) {
                        par[me] = par[pbase + j + unsigned(std::countr_zero(mk))];
                        ++i;
                        continue;
                    }
                    for (; mk; mk &= mk - 1) join(j + unsigned(std::countr_zero(mk)));
                } else {
                    for (std::uint32_t m = j; m < np && ps[m] + c4 <= e; ++m)
                        if (pk[m] == k) join(m);
                }
            }
            par[me] = lab;
            blk[me >> kBlockShift] += lab == me;
            ++i;
        }
        if (y == b.y0) {
            b.first_starts.assign(cs.begin(), cs.begin() + nc);
            b.first_keys.assign(ck.begin(), ck.begin() + nc);
        }
        if (y + 1 == b.y1) {
            b.last_starts.assign(cs.begin(), cs.begin() + nc);
            b.last_keys.assign(ck.begin(), ck.begin() + nc);
        }
        n_runs += nc;
        np = nc;
        std::swap(cs, ps);
        std::swap(ck, pk);
    }
    b.row_first[rows] = n_runs;
}

#if CCLABEL_X86_SIMD
template <PixelFormat F, int Conn>
__attribute__((target("avx2,popcnt"), flatten)) void scan_avx2(const detail::Request& r, const Switches& sw, Band& b,
                                                      std::size_t expected_runs) {
    scan_body<F, Conn, true>(r, sw, b, expected_runs);
}
#endif

template <PixelFormat F, int Conn>
void scan(const detail::Request& r, const Switches& sw, Band& b, std::size_t expected_runs) {
#if CCLABEL_X86_SIMD
    if (kAvx2) return scan_avx2<F, Conn>(r, sw, b, expected_runs);
#endif
    scan_body<F, Conn, false>(r, sw, b, expected_runs);
}

/// Step 3 for band @p b: numbers its runs (roots from first_label + 1, in place of the parents)
/// and writes the labels, a row at a time.
template <bool V>
[[gnu::always_inline]] inline void number_and_write_body(Band& b, std::uint64_t w, std::uint32_t* out, bool stream) {
    std::uint32_t* const par = b.parent.data();
    std::uint32_t n = b.first_label;
    par[0] = 0;
    std::size_t h = 0;
    std::uint32_t next_hung = b.hung_numbers.empty() ? 0 : b.hung_numbers[0].first;  // run 0 is in no row
    for (std::int64_t y = b.y0; y < b.y1; ++y) {
        const std::size_t yr = std::size_t(y - b.y0);
        const std::uint32_t r0 = b.row_first[yr], r1 = b.row_first[yr + 1];
        for (std::uint32_t rr = r0; rr < r1; ++rr) {
            const std::uint32_t p = par[rr];
            const bool root = p == rr;
            if (root && rr == next_hung) [[unlikely]] {
                par[rr] = b.hung_numbers[h].second;
                ++h;
                next_hung = h < b.hung_numbers.size() ? b.hung_numbers[h].first : 0;
                continue;
            }
            n += root;
            const std::uint32_t up = par[p];
            par[rr] = root ? n : up;
        }
        const std::uint8_t* bits = b.bits.get() + yr * b.bit_stride;
        std::uint32_t* o = out + std::uint64_t(y) * w;
#if CCLABEL_X86_SIMD
        if constexpr (V) {
            expand_row_avx2(bits, par + r0 - 1, std::uint32_t(w), o, y + 1 < b.y1, stream);
            continue;
        }
#endif
        expand_row_scalar(bits, par + r0 - 1, std::uint32_t(w), o);
    }
#if CCLABEL_X86_SIMD
    if constexpr (V)
        if (stream) _mm_sfence();  // the band's non-temporal stores before the thread says it is done
#endif
    (void)stream;
}

#if CCLABEL_X86_SIMD
__attribute__((target("avx2,popcnt"), flatten)) inline void number_and_write_avx2(Band& b, std::uint64_t w, std::uint32_t* out,
                                                                                  bool stream) {
    number_and_write_body<true>(b, w, out, stream);
}
#endif

/// @p stream: Switches::stream_stores applies to this picture (AVX2 only).
inline void number_and_write(Band& b, std::uint64_t w, std::uint32_t* out, bool stream) {
#if CCLABEL_X86_SIMD
    if (kAvx2) return number_and_write_avx2(b, w, out, stream);
#endif
    number_and_write_body<false>(b, w, out, false);
}

/// The seams and the bands' first numbers (step 2), for bands scanned by scan(); returns N.
template <int Conn>
std::uint32_t join_bands(std::vector<Band>& bands, std::uint64_t w) {
    const std::size_t nb = bands.size();
    std::vector<std::uint64_t> off(nb + 1, 0);  // global index of a band's run 0
    for (std::size_t i = 0; i < nb; ++i) off[i + 1] = off[i] + bands[i].row_first.back();
    auto band_of = [&](std::uint64_t g) {
        return std::size_t(std::upper_bound(off.begin(), off.end(), g) - off.begin()) - 1;
    };
    // Root of global run g: the root in its band, then across the seams.
    auto find_global = [&](std::uint64_t g) {
        for (;;) {
            const std::size_t bi = band_of(g);
            Band& b = bands[bi];
            const std::uint32_t lr = find(b.parent.data(), std::uint32_t(g - off[bi]));
            const auto it = b.hung.find(lr);
            if (it == b.hung.end()) return off[bi] + lr;
            g = it->second;
        }
    };
    for (std::size_t bi = 1; bi < nb; ++bi) {
        const Band& up = bands[bi - 1];
        const Band& lo = bands[bi];
        const std::uint32_t ua = up.row_first[std::size_t(up.y1 - up.y0) - 1], un = up.row_first.back() - ua;
        const std::uint32_t la = lo.row_first[0], ln = lo.row_first[1] - la;
        const std::uint32_t* us = up.last_starts.data();
        const std::uint32_t* ls = lo.first_starts.data();
        auto u_end = [&](std::uint32_t m) { return m + 1 < un ? us[m + 1] : std::uint32_t(w); };
        constexpr std::uint32_t c4 = Conn == 4 ? 1u : 0u;
        std::uint32_t j = 0;
        for (std::uint32_t i = 0; i < ln; ++i) {
            const std::uint32_t s = ls[i], e = i + 1 < ln ? ls[i + 1] : std::uint32_t(w), k = lo.first_keys[i];
            if (lo.parent.data()[la + i] == 0) continue;  // background
            while (j + 1 < un && u_end(j) < s + c4) ++j;
            for (std::uint32_t m = j; m < un && us[m] + c4 <= e; ++m) {
                if (up.last_keys[m] != k || u_end(m) < s + c4) continue;
                std::uint64_t a = find_global(off[bi - 1] + ua + m), c = find_global(off[bi] + la + i);
                if (a == c) continue;
                if (a > c) std::swap(a, c);
                const std::size_t ba = band_of(a), bc = band_of(c);
                Band& hb = bands[bc];
                --hb.block_roots[std::size_t((c - off[bc]) >> kBlockShift)];
                if (ba == bc)
                    hb.parent.data()[c - off[bc]] = std::uint32_t(a - off[bc]);
                else
                    hb.hung.emplace(std::uint32_t(c - off[bc]), std::uint32_t(a));
            }
        }
    }
    // Per band: the roots before each block, its first label, and the roots hung across a seam
    // with their targets, sorted (the targets become numbers below).
    std::vector<std::vector<std::uint32_t>> before_block(nb);
    std::uint32_t next = 0;
    for (std::size_t bi = 0; bi < nb; ++bi) {
        Band& b = bands[bi];
        std::vector<std::uint32_t>& pre = before_block[bi];
        pre.resize(b.block_roots.size() + 1, 0);
        for (std::size_t k = 0; k < b.block_roots.size(); ++k) pre[k + 1] = pre[k] + b.block_roots[k];
        b.first_label = next;
        next += pre.back();
        b.hung_numbers.assign(b.hung.begin(), b.hung.end());
        std::sort(b.hung_numbers.begin(), b.hung_numbers.end());
    }
    // A final root's number: its band's first label, the roots of the blocks before it and those of
    // its own block up to it (roots hung across a seam still look like roots in their arrays).
    std::unordered_map<std::uint64_t, std::uint32_t> numbers;
    auto number_of = [&](std::uint64_t g) {
        const auto [it, fresh] = numbers.try_emplace(g, 0);
        if (!fresh) return it->second;
        const std::size_t bi = band_of(g);
        const Band& b = bands[bi];
        const auto l = std::uint32_t(g - off[bi]);
        const std::uint32_t first = std::max<std::uint32_t>(1, l >> kBlockShift << kBlockShift);
        std::uint32_t n = b.first_label + before_block[bi][l >> kBlockShift];
        const std::uint32_t* par = b.parent.data();
        for (std::uint32_t i = first; i <= l; ++i) n += par[i] == i;
        const auto& hs = b.hung_numbers;  // sorted by root; only the roots are read here
        const auto at = [&](std::uint32_t v) {
            return std::lower_bound(hs.begin(), hs.end(), v, [](const auto& e, std::uint32_t u) { return e.first < u; });
        };
        n -= std::uint32_t(at(l + 1) - at(first));
        it->second = n;
        return n;
    };
    for (Band& b : bands)
        for (auto& [local, target] : b.hung_numbers) target = number_of(find_global(target));
    return next;
}

}  // namespace cclabel::cpu::runs
