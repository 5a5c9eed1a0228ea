#pragma once
// The run path's scan for Binary8 pictures (Switches::binary_runs). A mask has two keys, so a
// row's runs alternate between background and foreground: a run's key is its parity (given the
// key of the row's first pixel), and the runs above that may touch a run form one contiguous
// range of which every other run is foreground. That removes what the general scan spends on keys:
// no row of 32-bit keys (32 bytes compared against zero at once give 32 foreground bits, whose
// changes are the run starts, found by bit scans), no key compares in the joins. Noise, whose runs
// are one to three pixels long, is what this is for: the general path sends it to the pixel scan.
// It fills runs::Band exactly as runs::scan does, so the seams and the numbering are shared.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "cpu/run_rows.hpp"

namespace cclabel::cpu::runs {

/// Foreground bits (bit i: p[i] != 0) of the @p n <= 32 bytes from @p p.
inline std::uint32_t fg_bits_scalar(const std::uint8_t* p, std::uint32_t n) {
    std::uint32_t m = 0;
    for (std::uint32_t i = 0; i < n; ++i) m |= std::uint32_t(p[i] != 0) << i;
    return m;
}

#if CCLABEL_X86_SIMD
__attribute__((target("avx2"))) inline std::uint32_t fg_bits32_avx2(const std::uint8_t* p) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return ~std::uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256())));
}
#endif

/// Run starts of a mask row of @p n pixels into @p cs (returns how many; pixel 0 always starts a
/// run), start bits into @p bits (bits past n cleared), and in @p fg0 whether pixel 0 is foreground.
template <bool V>
inline std::uint32_t binary_run_starts(const std::uint8_t* row, std::uint32_t n, std::uint32_t* cs, std::uint8_t* bits,
                                       bool& fg0) {
    std::uint32_t nc = 0, carry = 0;  // carry: foreground bit of the pixel before the word
    for (std::uint64_t x64 = 0; x64 < n; x64 += 32) {  // 64-bit: a row of nearly 2^32 pixels must not wrap
        const auto x = std::uint32_t(x64);
        const std::uint32_t k = std::min<std::uint32_t>(32, n - x);
        std::uint32_t fg;
#if CCLABEL_X86_SIMD
        if constexpr (V)
            fg = k == 32 ? fg_bits32_avx2(row + x) : fg_bits_scalar(row + x, k);
        else
#endif
            fg = fg_bits_scalar(row + x, k);
        if (x == 0) {
            fg0 = fg & 1u;
            carry = ~fg & 1u;  // unlike pixel 0, so that pixel 0 starts a run
        }
        std::uint32_t t = fg ^ ((fg << 1) | carry);
        if (k < 32) t &= (1u << k) - 1u;
        carry = fg >> 31;
        for (std::uint32_t b = 0; b < (k + 7) / 8; ++b) bits[x / 8 + b] = std::uint8_t(t >> (8 * b));
        for (; t; t &= t - 1) cs[nc++] = x + std::uint32_t(std::countr_zero(t));
    }
    return nc;
}

/// runs::scan for Binary8 (see the file comment).
template <int Conn, bool V>
[[gnu::always_inline]] inline void scan_binary_body(const detail::Request& r, Band& b, std::size_t expected_runs) {
    const auto w = std::uint32_t(r.width);
    const auto rows = std::size_t(b.y1 - b.y0);
    std::vector<std::uint32_t> cs(std::size_t(w) + 2), ps(cs.size());
    b.start(w, expected_runs);
    std::uint32_t n_runs = 1, np = 0;
    bool pfg0 = false;  // the row above: is its run 0 foreground
    // Pixels above a run [s, e) that touch it: from s - c8 to e - 1 + c8 (8-connectivity: the
    // corners count).
    constexpr std::uint32_t c8 = Conn == 8 ? 1u : 0u;
    auto keep_row = [](std::vector<std::uint32_t>& starts, std::vector<std::uint32_t>& keys, const std::uint32_t* c,
                       std::uint32_t nc, bool fg0) {
        starts.assign(c, c + nc);
        keys.resize(nc);
        for (std::uint32_t i = 0; i < nc; ++i) keys[i] = std::uint32_t(fg0) ^ (i & 1u);
    };
    for (std::int64_t y = b.y0; y < b.y1; ++y) {
        const std::size_t yr = std::size_t(y - b.y0);
        bool fg0 = false;
        const std::uint32_t nc = binary_run_starts<V>(r.row(y), w, cs.data(), b.bits.get() + yr * b.bit_stride, fg0);
        cs[nc] = w;
        b.begin_row(yr, n_runs, nc, w);
        std::uint32_t* const par = b.parent.data();
        std::uint32_t* const blk = b.block_roots.data();
        const std::uint32_t pbase = n_runs - np;  // index of the row above's first run
        for (std::uint32_t i = fg0 ? 1u : 0u; i < nc; i += 2) par[n_runs + i] = 0;
        // Run m of the row above is foreground when its parity is pf.
        const std::uint32_t pf = pfg0 ? 0u : 1u;
        std::uint32_t j = 0;  // the run above holding the first pixel that touches the current run
        for (std::uint32_t i = fg0 ? 0u : 1u; i < nc; i += 2) {
            const std::uint32_t s = cs[i], e = cs[i + 1], me = n_runs + i;
            std::uint32_t lab = me;
            if (np) {
                const std::uint32_t lo = s > 0 ? s - c8 : 0, hi = e - 1 + c8;
                while (ps[j + 1] <= lo) ++j;  // ps[np] = w > lo stops it
                std::uint32_t m = j + ((j & 1u) != pf);
                if (m < np && ps[m] <= hi) {
                    if (m + 2 >= np || ps[m + 2] > hi) {  // one foreground run above: its parent will do
                        par[me] = par[pbase + m];
                        continue;
                    }
                    for (; m < np && ps[m] <= hi; m += 2) join_run(par, blk, pbase + m, me, lab);
                }
            }
            par[me] = lab;
            blk[me >> kBlockShift] += lab == me;
        }
        if (y == b.y0) keep_row(b.first_starts, b.first_keys, cs.data(), nc, fg0);
        if (y + 1 == b.y1) keep_row(b.last_starts, b.last_keys, cs.data(), nc, fg0);
        n_runs += nc;
        np = nc;
        pfg0 = fg0;
        std::swap(cs, ps);
    }
    b.row_first[rows] = n_runs;
}

#if CCLABEL_X86_SIMD
template <int Conn>
__attribute__((target("avx2,popcnt"), flatten)) void scan_binary_avx2(const detail::Request& r, Band& b,
                                                                       std::size_t expected_runs) {
    scan_binary_body<Conn, true>(r, b, expected_runs);
}
#endif

template <int Conn>
void scan_binary(const detail::Request& r, Band& b, std::size_t expected_runs) {
#if CCLABEL_X86_SIMD
    if (kAvx2) return scan_binary_avx2<Conn>(r, b, expected_runs);
#endif
    scan_binary_body<Conn, false>(r, b, expected_runs);
}

}  // namespace cclabel::cpu::runs
