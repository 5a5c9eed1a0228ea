#pragma once
// The scan mask of the CPU labeller (Wu, Otoo and Suzuki 2009, applied to exact values).
//
//   UL U UR      Each pixel's earlier neighbours; a bit of the code says "same key as me".
//   L  x         Bit 4 says "I am background".
//
// From the code alone follows where a pixel's provisional label comes from and which union it
// needs: with the pixel above of the same key, every other earlier neighbour is already in its set
// (8-connectivity: L touches U diagonally, UL and UR touch U along the row above), so the label is
// U's and no union is needed; otherwise L, then UL, then UR, with one union only when UR matches and
// the chosen neighbour does not touch it. With 4-connectivity only L and U count, and both matching
// needs a union. Computing codes for a whole row first lets the compiler vectorise the comparisons;
// the labelling loop then looks the code up instead of branching on each unpredictable match.
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace cclabel::cpu {

enum NeighbourBit : std::uint8_t { kL = 1, kUL = 2, kU = 4, kUR = 8, kBackground = 16 };

/// Where a label comes from: index into {fresh, L, UL, U, UR, zero}.
enum Source : std::uint8_t { kFresh = 0, kFromL = 1, kFromUL = 2, kFromU = 3, kFromUR = 4, kZero = 5 };

struct CodeTable {
    std::array<std::uint8_t, 32> source{};
    std::array<std::uint8_t, 32> join{};   ///< Source to unite with, or kFresh for none
    std::array<std::uint8_t, 32> fresh{};  ///< 1 when the pixel opens a new label
};

template <int Conn>
constexpr CodeTable make_code_table() {
    CodeTable t;
    for (int c = 0; c < 32; ++c) {
        const bool l = c & kL, ul = c & kUL, u = c & kU, ur = c & kUR;
        if (c & kBackground) {
            t.source[c] = kZero;
            continue;
        }
        if (Conn == 8) {
            t.source[c] = u ? kFromU : l ? kFromL : ul ? kFromUL : ur ? kFromUR : kFresh;
            t.join[c] = (ur && !u && (l || ul)) ? kFromUR : kFresh;
            t.fresh[c] = !(l || ul || u || ur);
        } else {
            t.source[c] = u ? kFromU : l ? kFromL : kFresh;
            t.join[c] = (u && l) ? kFromL : kFresh;
            t.fresh[c] = !(l || u);
        }
    }
    return t;
}

// The row loops are compiled twice, for AVX2 and for any x86-64, and picked at load time: twice the
// lanes halve the cost of the comparisons, without requiring AVX2 of the machine.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define CCLABEL_ROW_LOOP __attribute__((target_clones("avx2", "default")))
#else
#define CCLABEL_ROW_LOOP
#endif

/// Codes of the pixels 1 .. w-2 of a row (the two end pixels are the caller's: they lack
/// neighbours). @p kp: keys of the row above, @p kc: this row.
CCLABEL_ROW_LOOP inline void row_codes(const std::uint32_t* __restrict kp, const std::uint32_t* __restrict kc, std::uint32_t w,
                      bool has_bg, std::uint32_t bg, std::uint8_t* __restrict code) {
    const std::uint32_t bgm = has_bg ? 1u : 0u;
    for (std::uint32_t x = 1; x + 1 < w; ++x) {
        const std::uint32_t k = kc[x];
        code[x] = std::uint8_t(std::uint32_t(kc[x - 1] == k) | (std::uint32_t(kp[x - 1] == k) << 1) |
                               (std::uint32_t(kp[x] == k) << 2) | (std::uint32_t(kp[x + 1] == k) << 3) |
                               ((bgm & std::uint32_t(k == bg)) << 4));
    }
}

/// How many pixels of a row do not continue a stretch of the labeller's fast paths (taking the
/// label above, background, opening a label): noise breaks at nearly every pixel, drawings rarely,
/// and the labeller picks its row loop by it (branches pay on stretches, selects on noise).
CCLABEL_ROW_LOOP inline std::uint32_t stretch_breaks(const std::uint8_t* __restrict code, std::uint32_t w) {
    // Stretch class as arithmetic, so that the loop vectorises: 3 background, 2 take-above,
    // 1 fresh (code 0), 0 anything else.
    auto cls = [](std::uint8_t c) -> std::uint8_t {
        const std::uint8_t bg = (c >> 4) & 1, up = (c >> 2) & 1, zero = c == 0;
        return std::uint8_t((up << 1) | zero | (bg * 3));
    };
    std::uint32_t breaks = 0;
    for (std::uint32_t x = 1; x < w; ++x) {
        const std::uint8_t k = cls(code[x]);
        breaks += std::uint32_t((k == 0) | (k != cls(code[x - 1])));
    }
    return breaks;
}

/// First index at or after @p x (below @p w) whose code c fails (c & mask) == value; eight codes
/// at a time, since the stretches this ends are long on drawings.
inline std::uint32_t stretch_end(const std::uint8_t* code, std::uint32_t x, std::uint32_t w, std::uint8_t mask,
                                 std::uint8_t value) {
    const std::uint64_t m8 = 0x0101010101010101ull * mask, v8 = 0x0101010101010101ull * value;
    while (x + 8 <= w) {
        std::uint64_t c;
        std::memcpy(&c, code + x, 8);
        const std::uint64_t diff = (c & m8) ^ v8;
        if (diff) return x + std::uint32_t(std::countr_zero(diff) / 8);  // little-endian byte order
        x += 8;
    }
    while (x < w && (code[x] & mask) == value) ++x;
    return x;
}

/// Code of one pixel with explicit neighbour presence (row ends, first row of a band).
inline std::uint8_t pixel_code(const std::uint32_t* kp, const std::uint32_t* kc, std::uint32_t x, std::uint32_t w,
                               bool has_above, bool has_bg, std::uint32_t bg) {
    const std::uint32_t k = kc[x];
    std::uint32_t c = 0;
    if (x > 0 && kc[x - 1] == k) c |= kL;
    if (has_above) {
        if (x > 0 && kp[x - 1] == k) c |= kUL;
        if (kp[x] == k) c |= kU;
        if (x + 1 < w && kp[x + 1] == k) c |= kUR;
    }
    if (has_bg && k == bg) c |= kBackground;
    return std::uint8_t(c);
}

}  // namespace cclabel::cpu
