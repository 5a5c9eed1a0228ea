#pragma once
// Runs fn(i) for i in [0, n) on up to `workers` threads (the calling thread is one of them), items
// handed out one at a time so that uneven items (ragged tiles, images of different sizes) balance.
// The first exception thrown by any fn is rethrown on the calling thread after every worker stops.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace cclabel::detail {

template <typename Fn>
void parallel_for(std::uint64_t n, int workers, Fn&& fn) {
    const std::uint64_t w = std::min<std::uint64_t>(n, std::uint64_t(std::max(workers, 1)));
    if (w <= 1) {
        for (std::uint64_t i = 0; i < n; ++i) fn(i);
        return;
    }
    std::atomic<std::uint64_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto work = [&] {
        for (std::uint64_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < n;) {
            try {
                fn(i);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                failed = true;
            }
        }
    };
    std::vector<std::thread> threads;
    threads.reserve(std::size_t(w - 1));
    try {
        for (std::uint64_t t = 1; t < w; ++t) threads.emplace_back(work);
    } catch (...) {
        failed = true;  // could not start a thread: stop the others, then report
        for (auto& t : threads) t.join();
        throw;
    }
    work();
    for (auto& t : threads) t.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace cclabel::detail
