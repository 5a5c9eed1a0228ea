// The CPU thread pool and the bands' phases (src/cpu/thread_pool.hpp, band_phases.hpp): every part
// runs once, on no more threads than the cores allow; exceptions reach the caller; concurrent and
// nested calls are correct; the step between two phases runs once, after every band's first phase
// and before any band's second, and not at all when a band failed; an oversubscribed machine (a
// spinning waiter descheduled) runs a call on one thread, but a streaming call on its threads, and a
// wait told not to detect never marks it; and many calls in a row, and a forked
// child, do not hang.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/cores.hpp"
#include "cpu/band_phases.hpp"
#include "cpu/spin_wait.hpp"
#include "cpu/thread_pool.hpp"

namespace cclabel::test {
namespace {

using cpu::run_parallel;

/// Runs n parts and checks that each index ran exactly once, on at most as many threads as the
/// cores allow.
void expect_every_index_once(int n) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    std::mutex m;
    std::set<std::thread::id> threads;
    run_parallel(n, [&](int i) {
        hits[std::size_t(i)].fetch_add(1);
        const std::lock_guard<std::mutex> lock(m);
        threads.insert(std::this_thread::get_id());
    });
    for (int i = 0; i < n; ++i) EXPECT_EQ(hits[std::size_t(i)].load(), 1) << "n " << n << " index " << i;
    EXPECT_LE(int(threads.size()), std::min(n, detail::usable_cores())) << "n " << n;
}

TEST(ThreadPool, EveryIndexExactlyOnce) {
    for (int n : {1, 2, 3, 17, 64, 3, 1}) expect_every_index_once(n);
}

TEST(ThreadPool, ZeroPartsRunNothing) {
    bool ran = false;
    run_parallel(0, [&](int) { ran = true; });
    EXPECT_FALSE(ran);
}

TEST(ThreadPool, FirstExceptionReachesTheCallerAfterAllFinished) {
    for (int thrower : {0, 1, 4}) {
        std::atomic<int> finished{0};
        try {
            run_parallel(5, [&](int i) {
                if (i == thrower) throw std::runtime_error("part " + std::to_string(i));
                finished.fetch_add(1);
            });
            ADD_FAILURE() << "no exception from part " << thrower;
        } catch (const std::runtime_error& e) {
            EXPECT_EQ(std::string(e.what()), "part " + std::to_string(thrower));
        }
        EXPECT_EQ(finished.load(), 4);
    }
    // Every part throws: one of the exceptions arrives, and the pool still works afterwards.
    EXPECT_THROW(run_parallel(4, [](int i) { throw i; }), int);
    expect_every_index_once(4);
}

TEST(ThreadPool, ConcurrentCallersBothCorrect) {
    constexpr int kCalls = 200;
    auto caller = [](std::uint64_t* sum) {
        for (int c = 0; c < kCalls; ++c) {
            std::vector<std::uint64_t> part(8, 0);
            run_parallel(8, [&](int i) { part[std::size_t(i)] = std::uint64_t(i) * 1000 + std::uint64_t(c); });
            for (std::uint64_t v : part) *sum += v;
        }
    };
    std::uint64_t a = 0, b = 0;
    {
        std::jthread ta(caller, &a), tb(caller, &b);
    }
    const std::uint64_t expected = kCalls * 28000ull + 8ull * (kCalls * (kCalls - 1) / 2);
    EXPECT_EQ(a, expected);
    EXPECT_EQ(b, expected);
}

TEST(ThreadPool, NestedCallsComplete) {
    std::vector<std::atomic<int>> hits(4 * 3);
    run_parallel(4, [&](int outer) {
        run_parallel(3, [&](int inner) { hits[std::size_t(outer * 3 + inner)].fetch_add(1); });
    });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(ThreadPool, ManyCallsInARowDoNotHang) {
    std::atomic<std::uint64_t> sum{0};
    for (int c = 0; c < 2000; ++c) run_parallel(2 + c % 3, [&](int i) { sum.fetch_add(std::uint64_t(i) + 1); });
    std::uint64_t expected = 0;
    for (int c = 0; c < 2000; ++c) expected += std::uint64_t((2 + c % 3) * (3 + c % 3) / 2);
    EXPECT_EQ(sum.load(), expected);
}

#if !defined(__SANITIZE_THREAD__)  // ThreadSanitizer does not support threads started after fork()
TEST(ThreadPool, ForkedChildBuildsItsOwnPool) {
    expect_every_index_once(3);  // the parent's pool exists and has workers
    const pid_t child = fork();
    ASSERT_NE(child, -1);
    if (child == 0) {
        std::atomic<int> sum{0};
        run_parallel(3, [&](int i) { sum.fetch_add(i + 1); });
        _exit(sum.load() == 6 ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
}
#endif

TEST(ThreadPool, OversubscribedMachineRunsACallOnOneThread) {
    cpu::mark_oversubscribed(cpu::steady_ns());
    EXPECT_TRUE(cpu::machine_oversubscribed());
    EXPECT_EQ(cpu::parallel_threads_now(8), 1);
    std::set<std::thread::id> threads;
    run_parallel(8, [&](int) { threads.insert(std::this_thread::get_id()); });  // one thread: no race
    EXPECT_EQ(threads.size(), 1u);
    EXPECT_EQ(*threads.begin(), std::this_thread::get_id());
    cpu::oversubscribed_until_ns.store(0);
    // This process's cores alone: the machine-wide budget would count other processes' calls (ctest
    // runs tests side by side, and other jobs share the machine), which this test is not about.
    cpu::core_budget_for_tests.store(detail::usable_cores());
    EXPECT_EQ(cpu::parallel_threads_now(8), std::min(8, detail::usable_cores()));
    cpu::core_budget_for_tests.store(0);
}

TEST(ThreadPool, StreamingCallKeepsItsThreadsOnAnOversubscribedMachine) {
    // The staging ring's copies: independent parts, so a busy machine costs them nothing that one
    // thread would not (thread_pool.hpp, Work::streaming).
    cpu::core_budget_for_tests.store(4);
    cpu::mark_oversubscribed(cpu::steady_ns());
    EXPECT_EQ(cpu::parallel_threads_now(4), 1);
    EXPECT_EQ(cpu::parallel_threads_now(4, cpu::Work::streaming), 4);
    std::mutex m;
    std::set<std::thread::id> threads;
    std::vector<std::atomic<int>> hits(4);
    run_parallel(
        4,
        [&](int i) {
            hits[std::size_t(i)].fetch_add(1);
            {
                const std::lock_guard<std::mutex> lock(m);
                threads.insert(std::this_thread::get_id());
            }
            // Long enough for a worker woken on a loaded machine to claim a part.
            std::this_thread::sleep_for(std::chrono::milliseconds(40));
        },
        cpu::Work::streaming);
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
    EXPECT_GT(threads.size(), 1u);
    cpu::oversubscribed_until_ns.store(0);
    cpu::core_budget_for_tests.store(0);
}

#ifdef __linux__
/// Pins the calling thread to @p cpu; false where it cannot.
bool pin_to(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0;
}

/// Runs a waiter that shares its CPU with a busy thread for up to @p changes changes of the flag
/// it waits on (one every 2 ms), stopping once the machine is marked oversubscribed; 1 when it was
/// marked, 0 when not, -1 when threads cannot be pinned. While the waiter spins, the OS runs the
/// busy thread on its core (given it by a yield, or by preemption at a tick).
int descheduled_spinner_marks(int changes, bool detect) {
    cpu::oversubscribed_until_ns.store(0);
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
    int cpu = 0;
    while (!CPU_ISSET(cpu, &allowed)) ++cpu;
    std::atomic<bool> stop{false};
    std::atomic<int> hog_ready{0}, flag{0};
    std::jthread hog([&] {
        hog_ready = pin_to(cpu) ? 1 : 2;
        while (!stop.load(std::memory_order_relaxed)) cpu::cpu_relax();
    });
    while (hog_ready.load() == 0) std::this_thread::yield();
    if (hog_ready.load() != 1) {
        stop = true;
        return -1;
    }
    std::jthread setter([&] {
        for (int i = 1; i <= changes && !stop.load(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            flag.store(i);
            flag.notify_all();
        }
    });
    bool marked = false;
    std::jthread waiter([&] {
        if (!pin_to(cpu)) return;
        for (int seen = 0; seen < changes && !cpu::machine_oversubscribed();)
            seen = cpu::wait_while_equal(flag, seen, detect);
        marked = cpu::machine_oversubscribed();
    });
    waiter.join();
    stop = true;
    cpu::oversubscribed_until_ns.store(0);
    return marked ? 1 : 0;
}

TEST(SpinWait, ADescheduledSpinnerMarksTheMachineOversubscribed) {
    const int marked = descheduled_spinner_marks(2000, true);  // up to 4 s: it spins up to kSpinTime a change
    if (marked < 0) GTEST_SKIP() << "cannot pin threads";
    EXPECT_EQ(marked, 1);
}

TEST(SpinWait, AWaitThatDoesNotDetectNeverMarks) {
    // The pool's workers wait so between a streaming call's chunks (thread_pool.hpp, Work::streaming).
    const int marked = descheduled_spinner_marks(200, false);
    if (marked < 0) GTEST_SKIP() << "cannot pin threads";
    EXPECT_EQ(marked, 0);
}
#endif

TEST(BandPhases, StepRunsOnceAfterEveryFirstPhaseAndBeforeAnySecond) {
    for (int threads : {1, 2, 3, 8})
        for (int bands : {1, 2, 5, 33}) {
            std::vector<std::atomic<int>> first(static_cast<std::size_t>(bands)), second(static_cast<std::size_t>(bands));
            std::atomic<int> steps{0}, bad{0};
            cpu::band_phases(
                threads, bands,
                [&](int b) {
                    if (steps.load() != 0) bad.fetch_add(1);
                    first[std::size_t(b)].fetch_add(1);
                },
                [&]() noexcept {
                    for (auto& f : first)
                        if (f.load() != 1) bad.fetch_add(1);
                    steps.fetch_add(1);
                },
                [&](int b) {
                    if (steps.load() != 1) bad.fetch_add(1);
                    second[std::size_t(b)].fetch_add(1);
                });
            const std::string what = "threads " + std::to_string(threads) + " bands " + std::to_string(bands);
            EXPECT_EQ(steps.load(), 1) << what;
            EXPECT_EQ(bad.load(), 0) << what;
            for (int b = 0; b < bands; ++b) {
                EXPECT_EQ(first[std::size_t(b)].load(), 1) << what << " band " << b;
                EXPECT_EQ(second[std::size_t(b)].load(), 1) << what << " band " << b;
            }
        }
}

TEST(BandPhases, AFailedBandSkipsTheStepAndTheSecondPhase) {
    for (int threads : {1, 2, 4}) {
        bool stepped = false;
        std::atomic<int> numbered{0};
        EXPECT_THROW(cpu::band_phases(
                         threads, 9,
                         [&](int b) {
                             if (b == 4) throw std::runtime_error("scan failed");
                         },
                         [&]() noexcept { stepped = true; }, [&](int) { numbered.fetch_add(1); }),
                     std::runtime_error);
        EXPECT_FALSE(stepped) << "threads " << threads;
        EXPECT_EQ(numbered.load(), 0) << "threads " << threads;
    }
}

}  // namespace
}  // namespace cclabel::test
