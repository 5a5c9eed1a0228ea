// The CPU thread pool and the bands' spin barrier (src/cpu/thread_pool.hpp, spin_barrier.hpp): every
// part runs once and all at the same time; exceptions reach the caller; concurrent and nested calls
// (which fall back to threads of their own) are correct; the barrier's completion runs once per
// phase before anyone is released, and not at all when a thread failed; and many calls in a row,
// and a forked child, do not hang.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpu/spin_barrier.hpp"
#include "cpu/thread_pool.hpp"

namespace cclabel::test {
namespace {

using cpu::run_parallel;

/// Runs n parts and checks that each index ran exactly once, all of them at the same time (they
/// meet at a barrier, which would hang if any two shared a thread).
void expect_every_index_once(int n) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    int phases = 0;
    cpu::SpinBarrier all_here(n, [&]() noexcept { ++phases; });
    run_parallel(n, [&](int i) {
        hits[std::size_t(i)].fetch_add(1);
        all_here.arrive_and_wait();
    });
    for (int i = 0; i < n; ++i) EXPECT_EQ(hits[std::size_t(i)].load(), 1) << "n " << n << " index " << i;
    EXPECT_EQ(phases, 1);
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

TEST(SpinBarrier, CompletionRunsOncePerPhaseBeforeRelease) {
    for (int n : {1, 2, 3, 8}) {
        constexpr int kPhases = 50;
        std::atomic<int> arrived{0};
        int completions = 0;  // written by the completion only, read by every part after release
        std::atomic<int> bad{0};
        cpu::SpinBarrier barrier(n, [&]() noexcept {
            if (arrived.load() != n * (completions + 1)) bad.fetch_add(1);  // all arrived first
            ++completions;
        });
        run_parallel(n, [&](int) {
            for (int p = 0; p < kPhases; ++p) {
                arrived.fetch_add(1);
                barrier.arrive_and_wait();
                if (completions != p + 1) bad.fetch_add(1);  // released only after this phase's completion
            }
        });
        EXPECT_EQ(completions, kPhases) << "n " << n;
        EXPECT_EQ(bad.load(), 0) << "n " << n;
    }
}

TEST(SpinBarrier, AFailedThreadReleasesTheOthersWithoutTheCompletion) {
    bool completed = false;
    std::atomic<int> numbered{0};
    cpu::SpinBarrier barrier(3, [&]() noexcept { completed = true; });
    EXPECT_THROW(run_parallel(3, [&](int i) {
                     barrier.in_two_phases(
                         [&] {
                             if (i == 1) throw std::runtime_error("scan failed");
                         },
                         [&] { numbered.fetch_add(1); });
                 }),
                 std::runtime_error);
    EXPECT_FALSE(completed);
    EXPECT_EQ(numbered.load(), 0);
    // Without a failure every thread runs its second phase, after the completion.
    cpu::SpinBarrier fine(3, [&]() noexcept { completed = true; });
    run_parallel(3, [&](int) { fine.in_two_phases([] {}, [&] { numbered.fetch_add(completed ? 1 : 100); }); });
    EXPECT_EQ(numbered.load(), 3);
}

}  // namespace
}  // namespace cclabel::test
