#pragma once
// Waiting for another thread's store. A thread that blocks in the kernel (futex) wakes 0.5-2.5 ms
// after the store on a virtual machine whose other vCPU sits idle, as long as a whole band's work on
// a small picture; a thread that spins sees the store at once. Spinning only pays while every busy
// thread has a core of its own, and only for a short time: after that the waiter blocks.
//
// This process cannot count the threads of other processes (four batch jobs on two cores, each
// believing the cores its own), so a spinning thread yields now and then and times each round of
// spinning: one that took far longer than its pauses was descheduled, the OS running another thread
// on its core (given it by the yield, or by preemption). Twice within kStrikeWindow, the machine is
// then taken to be oversubscribed for a while (kOversubscribedFor): nobody spins, and parallel calls
// take one thread (thread_pool.cpp), since more threads only take turns on cores that other work
// keeps busy.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "core/cores.hpp"
#include "cpu/thread_trace.hpp"

namespace cclabel::cpu {

/// How long a waiter spins before it blocks: about one band's work on a small picture.
inline constexpr std::chrono::microseconds kSpinTime{1000};
/// A round of spinning (256 pauses, at most about 40 us, and a yield, a system call of about a
/// microsecond when no other thread wants the core) that takes longer than this was descheduled:
/// another thread ran on its core for part of a time slice (0.75-4 ms).
inline constexpr std::chrono::microseconds kDescheduled{200};
/// How long a descheduled spinner (or a late worker) marks the machine oversubscribed: a few calls
/// on a large picture.
inline constexpr std::chrono::milliseconds kOversubscribedFor{100};
/// A descheduled spin marks the machine only when another was seen this recently: one deschedule
/// of a few hundred microseconds happens on an idle machine too (an interrupt, a TLB shootdown when
/// another thread unmaps memory, the kernel's own work). On the 16-core GPU host, single ones of 276
/// and 341 us sent the next 100 ms of calls to one thread, the small sheets' CPU calls from Python
/// 1.5x slower (run of 2026-12-06, CCLABEL_TRACE_THREADS). An oversubscribed machine deschedules
/// every spinner, many times a window.
inline constexpr std::chrono::milliseconds kStrikeWindow{20};

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

/// Tests only: the cores parallel calls share, instead of usable_cores() (0: usable_cores()), so
/// that a test on a small machine can run several multi-threaded calls at once.
inline constinit std::atomic<int> core_budget_for_tests{0};

/// The cores parallel calls share: those this process may use.
inline int core_budget() noexcept {
    const int t = core_budget_for_tests.load(std::memory_order_relaxed);
    return t > 0 ? t : cclabel::detail::usable_cores();
}

/// steady_clock time (ns since its epoch) until which the machine counts as oversubscribed.
inline constinit std::atomic<std::int64_t> oversubscribed_until_ns{0};

inline std::int64_t steady_ns() noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// True while the machine was found oversubscribed recently (see the file's comment).
inline bool machine_oversubscribed() noexcept {
    return steady_ns() < oversubscribed_until_ns.load(std::memory_order_relaxed);
}

/// When the last descheduled spin was seen (steady_clock ns; 0: never).
inline constinit std::atomic<std::int64_t> last_descheduled_ns{0};

/// Records a descheduled spin at @p now_ns; true when it is the second within kStrikeWindow.
inline bool second_strike(std::int64_t now_ns) noexcept {
    const std::int64_t prev = last_descheduled_ns.exchange(now_ns, std::memory_order_relaxed);
    return prev != 0 && now_ns - prev < std::chrono::nanoseconds(kStrikeWindow).count();
}

inline void mark_oversubscribed(std::int64_t now_ns) noexcept {
    const std::int64_t until = now_ns + std::chrono::nanoseconds(kOversubscribedFor).count();
    std::int64_t old = oversubscribed_until_ns.load(std::memory_order_relaxed);
    while (old < until && !oversubscribed_until_ns.compare_exchange_weak(old, until, std::memory_order_relaxed)) {
    }
}

/// The machine's cores less the threads of other processes' calls, as the last call of this process
/// to read the machine's budget found them (machine_budget.hpp); large when there is none.
inline constinit std::atomic<int> machine_cores_left{1 << 30};

/// True when every thread of every parallel call in progress can have a core: only then does a
/// spinning thread take no core from one that still has work (a thread woken on a machine whose
/// cores all spin waits for a time slice, about as long as the spin).
inline bool spinning_pays() noexcept {
    const int in_calls = threads_in_parallel_calls.load(std::memory_order_relaxed);
    return in_calls <= core_budget() && in_calls <= machine_cores_left.load(std::memory_order_relaxed) &&
           !machine_oversubscribed();
}

/// Waits until @p a no longer holds @p old and returns its new value: spins for up to kSpinTime
/// when spinning pays, then blocks. The thread that stores into @p a must call notify_one/notify_all
/// afterwards (cheap while nobody blocks: libstdc++ then makes no system call). A spin that finds
/// itself descheduled marks the machine oversubscribed when @p detect, and only blocks otherwise.
template <typename T>
T wait_while_equal(const std::atomic<T>& a, T old, bool detect = true) noexcept {
    if (spinning_pays()) {
        std::int64_t last = steady_ns();
        const std::int64_t deadline = last + std::chrono::nanoseconds(kSpinTime).count();
        for (;;) {
            for (int i = 0; i < 256; ++i) {  // a clock read costs about as much as 20-100 pauses
                const T v = a.load(std::memory_order_acquire);
                if (v != old) return v;
                cpu_relax();
            }
            // The thread waited for may be queued behind this one on the same core (other programs
            // keep the cores busy); yielding lets it run, and costs a system call when none is.
            std::this_thread::yield();
            const std::int64_t now = steady_ns();
            if (now - last > std::chrono::nanoseconds(kDescheduled).count()) {
                if (detect) {  // another thread wanted this core: a second time soon, stop taking it
                    if (second_strike(now)) {
                        mark_oversubscribed(now);
                        trace_mark("oversubscribed: a spinning wait was descheduled twice within the window", now - last);
                    } else {
                        trace_mark("not marked: a first descheduled spin", now - last);
                    }
                }
                break;
            }
            if (now >= deadline) break;
            last = now;
        }
    }
    for (;;) {
        const T v = a.load(std::memory_order_acquire);
        if (v != old) return v;
        a.wait(old, std::memory_order_acquire);
    }
}

}  // namespace cclabel::cpu
