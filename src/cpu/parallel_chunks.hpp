#pragma once
// Fixed-size chunks of a picture's pixels shared out to threads. The chunking never depends on the
// thread count, and every result combined across chunks is an integer sum, so results do not either.
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "cpu/thread_pool.hpp"

namespace cclabel::cpu {

inline constexpr std::uint32_t kChunkPixels = 1u << 16;

/// Threads worth starting for @p pixels (at least one chunk each).
inline int chunk_threads(int threads, std::uint64_t pixels) {
    const std::uint64_t chunks = (pixels + kChunkPixels - 1) / kChunkPixels;
    return int(std::max<std::uint64_t>(1, std::min<std::uint64_t>(std::uint64_t(threads), chunks)));
}

/// Runs fn(part, chunk) for every chunk of @p pixels, chunks taken in turn by @p threads parts
/// (run_parallel's: on up to that many threads, this one included; a part runs on one thread at a
/// time, so per-part sums need no atomics).
template <typename Fn>
void for_chunks(int threads, std::uint64_t pixels, Fn&& fn) {
    const std::uint64_t chunks = (pixels + kChunkPixels - 1) / kChunkPixels;
    std::atomic<std::uint64_t> next{0};
    auto work = [&](int t) {
        for (std::uint64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks;) fn(t, c);
    };
    run_parallel(threads, work);
}

/// Plain additions standing in for atomics where one thread owns the memory.
struct PlainAdd {
    void add32(std::uint32_t* p, std::uint32_t v) const { *p += v; }
    void add64(unsigned long long* p, unsigned long long v) const { *p += v; }
};

}  // namespace cclabel::cpu
