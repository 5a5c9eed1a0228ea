#pragma once
// Waiting for another thread's store. A thread that blocks in the kernel (futex) wakes 0.5-2.5 ms
// after the store on a virtual machine whose other vCPU sits idle, as long as a whole band's work on
// a small picture; a thread that spins sees the store at once. Spinning only pays while every busy
// thread has a core of its own, and only for a short time: after that the waiter blocks.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "core/cores.hpp"

namespace cclabel::cpu {

/// How long a waiter spins before it blocks: about one band's work on a small picture.
inline constexpr std::chrono::microseconds kSpinTime{1000};

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();  // frees the core's pipeline for its hyperthread sibling while spinning
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

/// Threads taking part in run_parallel calls now, over all callers (a second user thread's call
/// and nested calls included).
inline constinit std::atomic<int> threads_in_parallel_calls{0};

/// True when every thread of every parallel call in progress can have a core: only then does a
/// spinning thread take no core from one that still has work (a thread woken on a machine whose
/// cores all spin waits for a time slice, about as long as the spin).
inline bool spinning_pays() noexcept {
    const int cores = cclabel::detail::usable_cores();
    return threads_in_parallel_calls.load(std::memory_order_relaxed) <= cores;
}

/// Waits until @p a no longer holds @p old and returns its new value: spins for up to kSpinTime
/// when spinning pays, then blocks. The thread that stores into @p a must call notify_one/notify_all
/// afterwards (cheap while nobody blocks: libstdc++ then makes no system call).
template <typename T>
T wait_while_equal(const std::atomic<T>& a, T old) noexcept {
    if (spinning_pays()) {
        const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
        do {
            for (int i = 0; i < 256; ++i) {  // a clock read costs about as much as 20-100 pauses
                const T v = a.load(std::memory_order_acquire);
                if (v != old) return v;
                cpu_relax();
            }
            // The thread waited for may be queued behind this one on the same core (other programs
            // keep the cores busy); yielding lets it run, and costs a system call when none is.
            std::this_thread::yield();
        } while (std::chrono::steady_clock::now() < deadline);
    }
    for (;;) {
        a.wait(old, std::memory_order_acquire);
        const T v = a.load(std::memory_order_acquire);
        if (v != old) return v;
    }
}

}  // namespace cclabel::cpu
