// The machine-wide core budget (src/cpu/machine_budget.hpp): the threads a call takes from given
// facts; the shared file's accounting between processes (given pids whose liveness the test
// decides): counts seen by the others, slots of dead processes freed and reused, a slot taken over
// never written by its former owner, no file or no free slot -> no budget; run_parallel taking one
// thread while another process's calls hold every core; and several processes labelling at once
// (the test binary run again as children) getting the flood fill's labels.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "core/cores.hpp"
#include "cpu/machine_budget.hpp"
#include "cpu/spin_wait.hpp"
#include "cpu/thread_pool.hpp"
#include "reference/flood_fill.hpp"
#include "support/test_image.hpp"

extern char** environ;

namespace cclabel::test {
namespace {

using cpu::MachineBudget;
using cpu::threads_to_take;

TEST(MachineBudget, ThreadsToTakeFromGivenFacts) {
    // parts, process cores, machine cores (0: no budget), others' threads, this process's, nested
    EXPECT_EQ(threads_to_take(8, 2, 2, 0, 0, false), 2);   // alone on the machine
    EXPECT_EQ(threads_to_take(8, 2, 2, 1, 0, false), 1);   // another process holds a core
    EXPECT_EQ(threads_to_take(8, 2, 2, 3, 0, false), 1);   // more than the cores: still the caller
    EXPECT_EQ(threads_to_take(8, 4, 16, 13, 0, false), 3); // the machine's cores left
    EXPECT_EQ(threads_to_take(8, 4, 16, 2, 0, false), 4);  // this process's cores
    EXPECT_EQ(threads_to_take(8, 4, 16, 10, 2, false), 2); // both: 16 - 10 - 2
    EXPECT_EQ(threads_to_take(8, 2, 0, 50, 0, false), 2);  // no budget: others not counted
    EXPECT_EQ(threads_to_take(3, 8, 8, 0, 0, false), 3);   // no more than the parts
    EXPECT_EQ(threads_to_take(1, 8, 8, 0, 0, false), 1);
    EXPECT_EQ(threads_to_take(4, 2, 2, 0, 2, true), 1);    // nested: its own thread is counted
    EXPECT_EQ(threads_to_take(4, 4, 4, 0, 2, true), 3);
}

/// Pids 1000..1999 stand for processes; the test says which are alive.
std::set<int> alive_pids;
bool fake_alive(int pid) { return alive_pids.count(pid) != 0; }

/// A budget file of the test's own, removed before and after.
struct TempFile {
    std::string path;
    explicit TempFile(const char* name)
        : path(testing::TempDir() + "cclabel-budget-" + std::to_string(getpid()) + "-" + name) {
        std::remove(path.c_str());
    }
    ~TempFile() { std::remove(path.c_str()); }
};

TEST(MachineBudget, ProcessesSeeEachOthersThreads) {
    TempFile f("see");
    alive_pids = {1001, 1002};
    MachineBudget a(f.path.c_str(), 2, 1001, fake_alive), b(f.path.c_str(), 2, 1002, fake_alive);
    ASSERT_TRUE(a.usable());
    ASSERT_TRUE(b.usable());
    EXPECT_EQ(a.slots_held(), 2);
    EXPECT_EQ(a.others(), 0);
    a.add(2);
    EXPECT_EQ(a.mine(), 2);
    EXPECT_EQ(a.others(), 0) << "a process does not count its own threads as others'";
    EXPECT_EQ(b.others(), 2);
    EXPECT_EQ(threads_to_take(8, 2, b.cores(), b.others(), 0, false), 1);
    b.add(1);
    EXPECT_EQ(a.others(), 1);
    a.add(-2);
    EXPECT_EQ(b.others(), 0);
    EXPECT_EQ(threads_to_take(8, 2, b.cores(), b.others(), 0, false), 2);
    b.add(-5);  // more given back than taken: never below zero
    EXPECT_EQ(b.mine(), 0);
}

TEST(MachineBudget, ADeadProcessesThreadsAreFreedAndItsSlotReused) {
    TempFile f("dead");
    alive_pids = {1001, 1002};
    auto a = std::make_unique<MachineBudget>(f.path.c_str(), 2, 1001, fake_alive);
    MachineBudget b(f.path.c_str(), 2, 1002, fake_alive);
    a->add(2);  // and then 1001 crashes in its call, never giving them back
    alive_pids.erase(1001);
    EXPECT_EQ(b.others(), 0);
    EXPECT_EQ(b.slots_held(), 1) << "the dead process's slot is freed";
    alive_pids.insert(1003);
    MachineBudget c(f.path.c_str(), 2, 1003, fake_alive);
    ASSERT_TRUE(c.usable());
    EXPECT_EQ(c.slots_held(), 2) << "the freed slot is taken again, not a new one";
    // 1001 was not dead after all (a pid seen from another pid namespace): its next change finds
    // its slot taken and takes another, leaving 1003's count alone.
    alive_pids.insert(1001);
    a->add(-2);
    a->add(1);
    EXPECT_EQ(c.mine(), 0);
    EXPECT_EQ(b.others(), 1);
    a.reset();  // gives its slot back
    EXPECT_EQ(b.slots_held(), 2);
    // An idle slot of a process that ended is taken by the next process.
    c.add(0);
    alive_pids.erase(1003);
    alive_pids.insert(1004);
    MachineBudget d(f.path.c_str(), 2, 1004, fake_alive);
    EXPECT_EQ(d.slots_held(), 2);
}

TEST(MachineBudget, NoFileOrNoFreeSlotMeansNoBudget) {
    MachineBudget nowhere("/nonexistent-cclabel-dir/budget", 2, 1001, fake_alive);
    EXPECT_FALSE(nowhere.usable());
    nowhere.add(2);
    EXPECT_EQ(nowhere.others(), 0);
    EXPECT_EQ(nowhere.mine(), 0);
    MachineBudget directory(testing::TempDir().c_str(), 2, 1001, fake_alive);
    EXPECT_FALSE(directory.usable());

    TempFile f("full");
    alive_pids.clear();
    std::vector<std::unique_ptr<MachineBudget>> all;
    for (int i = 0; i < MachineBudget::kSlots; ++i) {
        alive_pids.insert(1000 + i);
        all.push_back(std::make_unique<MachineBudget>(f.path.c_str(), 2, 1000 + i, fake_alive));
        ASSERT_TRUE(all.back()->usable()) << "slot " << i;
    }
    all.front()->add(1);
    alive_pids.insert(1999);
    MachineBudget late(f.path.c_str(), 2, 1999, fake_alive);
    EXPECT_FALSE(late.usable()) << "every slot held by a live process";
    EXPECT_EQ(late.others(), 0);
}

TEST(MachineBudget, AShortFileIsGrownWithFreeSlots) {
    TempFile f("short");
    std::ofstream(f.path) << "x";  // a truncated file: its first slot's bytes are not zero
    alive_pids = {1001};
    MachineBudget a(f.path.c_str(), 2, 1001, fake_alive);
    EXPECT_TRUE(a.usable());
    EXPECT_EQ(a.others(), 0);
}

TEST(MachineBudget, PidAliveKnowsLiveAndReapedProcesses) {
    EXPECT_TRUE(cpu::pid_alive(int(getpid())));
    const pid_t child = fork();
    ASSERT_NE(child, -1);
    if (child == 0) _exit(0);
    ASSERT_EQ(waitpid(child, nullptr, 0), child);
    EXPECT_FALSE(cpu::pid_alive(int(child)));
    EXPECT_FALSE(cpu::pid_alive(0));
}

TEST(MachineBudget, ACallTakesOneThreadWhileAnotherProcessHoldsEveryCore) {
    MachineBudget* mine = cpu::machine_budget();
    if (mine == nullptr) GTEST_SKIP() << "no machine budget here (no /dev/shm, or CCLABEL_MACHINE_BUDGET=0)";
    const int cores = detail::usable_cores();
    if (cores < 2) GTEST_SKIP() << "one core: every call takes one thread anyway";
    // Another process: a child that sleeps until killed, in whose name this test holds every core
    // of the machine's real budget (briefly: other programs labelling now take one thread meanwhile).
    const pid_t child = fork();
    ASSERT_NE(child, -1);
    if (child == 0) {
        for (;;) pause();
    }
    cpu::oversubscribed_until_ns.store(0);
    const std::string shm = "/dev/shm/" + cpu::machine_budget_name();
    {
        MachineBudget other(shm.c_str(), mine->cores(), int(child));
        if (!other.usable()) {  // this process's budget is in $XDG_RUNTIME_DIR
            kill(child, SIGKILL);
            waitpid(child, nullptr, 0);
            GTEST_SKIP() << "no budget file in /dev/shm";
        }
        other.add(mine->cores());
        EXPECT_EQ(cpu::parallel_threads_now(8), 1);
        std::set<std::thread::id> threads;
        cpu::run_parallel(8, [&](int) { threads.insert(std::this_thread::get_id()); });  // one thread: no race
        EXPECT_EQ(threads.size(), 1u);
        // The child dies holding them: they come back.
        kill(child, SIGKILL);
        ASSERT_EQ(waitpid(child, nullptr, 0), child);
        cpu::parallel_threads_now(8);  // reads the others' slots, and so finds the child dead
        EXPECT_EQ(other.mine(), 0) << "the dead process's slot was freed";
    }
}

/// Set in the children of SeveralProcessesGetTheFloodFillsLabels.
constexpr const char* kChildEnv = "CCLABEL_TEST_BUDGET_CHILD";

TEST(MachineBudgetChild, LabelsManyPicturesAndChecksThem) {
    const char* who = std::getenv(kChildEnv);
    if (who == nullptr) GTEST_SKIP() << "run by SeveralProcessesGetTheFloodFillsLabels";
    // Noise and blocks, binary and RGB, 4- and 8-connected; thread counts 2 and 4 (the bands, and
    // so the work, depend on them; the labels must not).
    std::uint32_t seed = std::uint32_t(std::atoi(who)) * 100 + 1;
    for (int round = 0; round < 3; ++round)
        for (PixelFormat f : {PixelFormat::Binary8, PixelFormat::RGB8})
            for (int conn : {4, 8}) {
                const std::int64_t w = 397 + 13 * round, h = 311;
                const TestImage img =
                    make_image(w, h, f, random_values(w, h, f == PixelFormat::Binary8 ? 2 : 8, 0.4, seed++));
                std::uint32_t n_ref = 0;
                const std::vector<std::uint32_t> ref =
                    flood_fill(img.values, w, h, conn, reference_background(f, {}), &n_ref);
                for (int threads : {2, 4}) {
                    Options o;
                    o.connectivity = conn;
                    o.threads = threads;
                    o.backend = Backend::Cpu;
                    std::vector<std::uint32_t> out(ref.size());
                    const LabelResult res = label(img.view(), out.data(), o);
                    ASSERT_EQ(res.count, n_ref) << "child " << who << " round " << round << " threads " << threads;
                    ASSERT_TRUE(out == ref) << "child " << who << " round " << round << " threads " << threads;
                }
            }
}

TEST(MachineBudget, SeveralProcessesGetTheFloodFillsLabels) {
    // Fresh processes (the test binary again, running the child test above), not forks of this one:
    // this process has threads, and ThreadSanitizer does not follow threads started after a fork.
    constexpr int kChildren = 4;
    std::vector<pid_t> children;
    for (int c = 0; c < kChildren; ++c) {
        std::vector<std::string> env_text{std::string(kChildEnv) + "=" + std::to_string(c)};
        for (char** e = environ; *e; ++e) env_text.emplace_back(*e);
        std::vector<char*> env;
        for (std::string& s : env_text) env.push_back(s.data());
        env.push_back(nullptr);
        std::string exe = "/proc/self/exe", filter = "--gtest_filter=MachineBudgetChild.*";
        char* argv[] = {exe.data(), filter.data(), nullptr};
        pid_t pid = 0;
        ASSERT_EQ(posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, env.data()), 0);
        children.push_back(pid);
    }
    for (int c = 0; c < kChildren; ++c) {
        int status = 0;
        ASSERT_EQ(waitpid(children[std::size_t(c)], &status, 0), children[std::size_t(c)]);
        ASSERT_TRUE(WIFEXITED(status)) << "child " << c << " died";
        EXPECT_EQ(WEXITSTATUS(status), 0) << "child " << c << "'s labels differ from the flood fill's (its output above)";
    }
}

}  // namespace
}  // namespace cclabel::test
