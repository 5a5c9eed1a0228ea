// Many callers at once (issue 24): several user threads, each labelling with several threads, get
// the flood-fill reference's labels (ThreadSanitizer runs this in the tsan stage: the pools, their
// gates and the bands' phases under concurrent callers); and a threaded call made while other
// threads keep every core busy completes with the right labels.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "core/cores.hpp"
#include "cpu/spin_wait.hpp"
#include "cpu/thread_pool.hpp"
#include "reference/flood_fill.hpp"
#include "support/test_image.hpp"

namespace cclabel::test {
namespace {

struct Case {
    TestImage img;
    int conn;
    std::vector<std::uint32_t> ref;
    std::uint32_t n_ref = 0;
    std::string what;
};

/// Pictures for both paths of the CPU labeller: noise (pixel path, shared bands) and blocky
/// pictures (run path, one band a thread), binary and RGB.
std::vector<Case> cases(std::int64_t w, std::int64_t h) {
    std::vector<Case> out;
    std::uint32_t seed = 11;
    for (PixelFormat f : {PixelFormat::Binary8, PixelFormat::RGB8})
        for (int conn : {4, 8}) {
            Case noise{make_image(w, h, f, random_values(w, h, f == PixelFormat::Binary8 ? 2 : 8, 0.4, seed++)), conn,
                       {}, 0, "noise"};
            std::vector<std::uint64_t> blocks(std::size_t(w * h));
            const auto cells = random_values(w / 8 + 1, h / 8 + 1, 3, 0.3, seed++);
            for (std::int64_t y = 0; y < h; ++y)
                for (std::int64_t x = 0; x < w; ++x)
                    blocks[std::size_t(y * w + x)] = cells[std::size_t((y / 8) * (w / 8 + 1) + x / 8)];
            Case blocky{make_image(w, h, f, blocks), conn, {}, 0, "blocky"};
            for (Case* c : {&noise, &blocky}) {
                c->ref = flood_fill(c->img.values, w, h, conn, reference_background(f, {}), &c->n_ref);
                c->what += std::string(f == PixelFormat::Binary8 ? " binary" : " rgb") + " conn " + std::to_string(conn);
                out.push_back(std::move(*c));
            }
        }
    return out;
}

/// Labels @p c with @p threads threads; empty when right, else what went wrong.
std::string label_and_check(const Case& c, int threads) {
    Options o;
    o.connectivity = c.conn;
    o.threads = threads;
    o.backend = Backend::Cpu;
    std::vector<std::uint32_t> out(c.ref.size() + 1, 0xA5A5A5A5u);
    const LabelResult res = label(c.img.view(), out.data(), o);
    if (res.count != c.n_ref) return c.what + ": count " + std::to_string(res.count) + " != " + std::to_string(c.n_ref);
    if (out.back() != 0xA5A5A5A5u) return c.what + ": wrote past the output";
    out.pop_back();
    if (out != c.ref) return c.what + ": labels differ from the reference";
    return {};
}

TEST(ConcurrentCalls, SeveralCallersEachWithSeveralThreads) {
    const std::vector<Case> all = cases(301, 203);
    constexpr int kCallers = 4, kRounds = 3;
    // Cores enough for every caller's threads, so that several pools work at once even on a
    // small machine; the oversubscription mark is cleared before each call for the same reason.
    cpu::core_budget_for_tests.store(16);
    std::vector<std::string> errors(kCallers);
    std::atomic<int> threaded{0};  // calls that ran on more than one thread
    {
        std::vector<std::jthread> callers;
        for (int c = 0; c < kCallers; ++c)
            callers.emplace_back([&, c] {
                for (int round = 0; round < kRounds && errors[std::size_t(c)].empty(); ++round)
                    for (std::size_t i = 0; i < all.size(); ++i) {
                        // Callers take the pictures in different orders and with different thread counts.
                        const Case& k = all[(i + std::size_t(c)) % all.size()];
                        cpu::oversubscribed_until_ns.store(0);
                        const int threads = 2 + (c + round) % 3;
                        if (cpu::parallel_threads_now(threads) > 1) threaded.fetch_add(1);
                        const std::string e = label_and_check(k, threads);
                        if (!e.empty()) {
                            errors[std::size_t(c)] = e + " (caller " + std::to_string(c) + ")";
                            break;
                        }
                    }
            });
    }
    cpu::core_budget_for_tests.store(0);
    for (const std::string& e : errors) EXPECT_TRUE(e.empty()) << e;
    EXPECT_GT(threaded.load(), 0) << "no call was threaded: the test covered nothing concurrent";
}

TEST(ConcurrentCalls, ThreadedCallWhileOtherThreadsHogEveryCore) {
    const std::vector<Case> all = cases(517, 389);
    const int cores = detail::usable_cores();
    std::atomic<bool> stop{false};
    std::atomic<int> started{0};
    std::vector<std::jthread> hogs;
    for (int i = 0; i < cores + 1; ++i)
        hogs.emplace_back([&] {
            started.fetch_add(1);
            while (!stop.load(std::memory_order_relaxed)) cpu::cpu_relax();
        });
    while (started.load() < cores + 1) std::this_thread::yield();
    for (const Case& c : all)
        for (int threads : {2, 4}) {
            // The hogs soon mark the machine oversubscribed, after which a call takes one thread;
            // clearing the mark makes this one threaded, as is a call made when the hogs start.
            cpu::oversubscribed_until_ns.store(0);
            const std::string e = label_and_check(c, threads);
            EXPECT_TRUE(e.empty()) << e << " (threads " << threads << ", cores hogged)";
        }
    stop = true;
}

}  // namespace
}  // namespace cclabel::test
