#pragma once
// Work on a picture's bands in two phases (the labeller's scan, then its numbering), with one step
// between them that runs once, on one thread, after every band's first phase and before any band's
// second (the seams). The threads of one run_parallel call claim bands in turn; the step between
// the phases waits for finished bands, not for arrived threads: a thread the OS has not yet run is
// never waited for (the threads that run take its bands), and a thread with no band left waits only
// for bands that running threads have claimed.
//
// A band whose first phase throws ends the first phase for every thread: the others stop claiming
// bands, skip the step and the second phase, and the exception reaches the caller.
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "cpu/spin_wait.hpp"
#include "cpu/thread_pool.hpp"

namespace cclabel::cpu {

/// Runs first(b) for every band b in [0, bands), then between(), then then(b) for every band, on up
/// to @p threads threads (this one included). between must not throw.
template <typename First, typename Between, typename Then>
void band_phases(int threads, int bands, First&& first, Between&& between, Then&& then) {
    if (bands <= 0) return;
    enum : std::uint32_t { kFirst, kSecond, kFailed };
    std::atomic<int> next_first{0}, done_first{0}, next_then{0};
    std::atomic<std::uint32_t> phase{kFirst};
    auto end_first_phase = [&](std::uint32_t to) {
        phase.store(to, std::memory_order_release);
        phase.notify_all();
    };
    run_parallel(std::min(threads, bands), [&](int) {
        for (int b; phase.load(std::memory_order_relaxed) == kFirst &&
                    (b = next_first.fetch_add(1, std::memory_order_relaxed)) < bands;) {
            try {
                first(b);
            } catch (...) {
                end_first_phase(kFailed);  // bands left unclaimed will never be counted done
                throw;
            }
            // acq_rel: the thread that finishes the last band sees every band's writes, and runs
            // the step; the others see the step's writes through the phase's release.
            if (done_first.fetch_add(1, std::memory_order_acq_rel) + 1 == bands) {
                // A band that failed has ended the phase already, and is never counted done.
                between();
                end_first_phase(kSecond);
            }
        }
        std::uint32_t p = phase.load(std::memory_order_acquire);
        if (p == kFirst) p = wait_while_equal(phase, p);
        if (p != kSecond) return;
        for (int b; (b = next_then.fetch_add(1, std::memory_order_relaxed)) < bands;) then(b);
    });
}

}  // namespace cclabel::cpu
