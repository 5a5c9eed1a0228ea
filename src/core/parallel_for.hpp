#pragma once
// Runs fn(i) for i in [0, n) on up to `workers` threads (the calling thread and workers of the CPU
// thread pool), items handed out one at a time so that uneven items (ragged tiles, images of
// different sizes) balance. The first exception thrown by any fn is rethrown on the calling thread
// after every worker stops; the others stop taking items once one has failed.
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "cpu/thread_pool.hpp"

namespace cclabel::detail {

template <typename Fn>
void parallel_for(std::uint64_t n, int workers, Fn&& fn, cpu::Work work = cpu::Work::compute) {
    const std::uint64_t w = std::min<std::uint64_t>(n, std::uint64_t(std::max(workers, 1)));
    if (w <= 1) {
        for (std::uint64_t i = 0; i < n; ++i) fn(i);
        return;
    }
    std::atomic<std::uint64_t> next{0};
    std::atomic<bool> failed{false};
    cpu::run_parallel(int(w), [&](int) {
        for (std::uint64_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < n;) {
            try {
                fn(i);
            } catch (...) {
                failed = true;
                throw;
            }
        }
    }, work);
}

}  // namespace cclabel::detail
