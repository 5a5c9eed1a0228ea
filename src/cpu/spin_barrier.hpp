#pragma once
// A barrier for the bands of one picture, like std::barrier (the completion runs once per phase, on
// the last thread to arrive, before any thread is released), but whose waiters spin briefly before
// blocking: std::barrier's waiters block at once, and one released from a futex on an idle vCPU
// resumes about 0.5 ms late, a large share of a band's work on a small picture. A thread whose work
// threw passes it too (arrive_failed), so that an exception reaches the caller instead of a hang.
#include <atomic>
#include <cstdint>
#include <utility>

#include "cpu/spin_wait.hpp"

namespace cclabel::cpu {

template <typename Completion>
class SpinBarrier {
public:
    SpinBarrier(int threads, Completion completion) : threads_(threads), completion_(std::move(completion)) {}
    SpinBarrier(const SpinBarrier&) = delete;
    SpinBarrier& operator=(const SpinBarrier&) = delete;

    /// Waits for every thread; false when one of them arrived through arrive_failed, in which case
    /// the completion did not run.
    bool arrive_and_wait() { return arrive(false); }

    /// Arrives for a thread whose work failed, so that the others are not left waiting for it.
    void arrive_failed() { arrive(true); }

    /// A band's two phases: @p first, the barrier (and its completion), then @p then, which is
    /// skipped when any thread's first phase threw; this thread's exception is rethrown.
    template <typename First, typename Then>
    void in_two_phases(First&& first, Then&& then) {
        try {
            first();
        } catch (...) {
            arrive_failed();  // the other threads would wait for this one for ever
            throw;
        }
        if (arrive_and_wait()) then();
    }

private:
    bool arrive(bool failed) {
        if (failed) failed_.store(true, std::memory_order_relaxed);  // published by the arrival
        // Read before arriving: the phase cannot move on until this thread has arrived.
        const std::uint32_t phase = phase_.load(std::memory_order_acquire);
        if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
            // Every other thread waits for the phase to change, so none arrives again before the reset.
            arrived_.store(0, std::memory_order_relaxed);
            if (!failed_.load(std::memory_order_relaxed)) completion_();
            phase_.store(phase + 1, std::memory_order_release);
            phase_.notify_all();
        } else {
            wait_while_equal(phase_, phase);
        }
        return !failed_.load(std::memory_order_relaxed);
    }

    const int threads_;
    Completion completion_;
    std::atomic<int> arrived_{0};
    std::atomic<std::uint32_t> phase_{0};
    std::atomic<bool> failed_{false};  // stays set: a failed thread's caller gives the whole call up
};

}  // namespace cclabel::cpu
