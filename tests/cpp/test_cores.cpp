// usable_cores (src/core/cores.hpp): what Options::threads = 0 means. From given facts (online CPUs,
// the affinity mask, cgroup v2 and v1 quotas, malformed quota text), and end to end: this test
// binary run again as a child pinned to one CPU gives a picture of 16 Mpx one thread, not one a core.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cclabel/label.hpp"
#include "core/cores.hpp"
#include "core/request.hpp"

namespace cclabel::test {
namespace {

using detail::usable_cores_from;

TEST(Cores, FromFacts) {
    EXPECT_EQ(usable_cores_from(16, 0, "", 0, 0), 16) << "nothing known but the machine";
    EXPECT_EQ(usable_cores_from(0, 0, "", 0, 0), 1) << "an unknown machine is one core";
    EXPECT_EQ(usable_cores_from(16, 4, "", 0, 0), 4) << "taskset, a cpuset";
    EXPECT_EQ(usable_cores_from(16, 32, "", 0, 0), 16);
    EXPECT_EQ(usable_cores_from(16, 0, "max 100000", 0, 0), 16);
    EXPECT_EQ(usable_cores_from(16, 0, "200000 100000", 0, 0), 2) << "docker --cpus=2";
    EXPECT_EQ(usable_cores_from(16, 0, "150000 100000", 0, 0), 2) << "a quota of 1.5 cores rounds up";
    EXPECT_EQ(usable_cores_from(16, 0, "50000 100000", 0, 0), 1);
    EXPECT_EQ(usable_cores_from(16, 8, "300000 100000", 0, 0), 3) << "the smallest limit wins";
    EXPECT_EQ(usable_cores_from(16, 2, "300000 100000", 0, 0), 2);
    EXPECT_EQ(usable_cores_from(16, 0, "", 400000, 100000), 4) << "cgroup v1";
    EXPECT_EQ(usable_cores_from(16, 0, "", -1, 100000), 16) << "cgroup v1 without a quota";
    EXPECT_EQ(usable_cores_from(16, 0, "200000 100000", 400000, 100000), 2) << "v2 is read when present";
    for (const char* bad : {"garbage", "12x 100000", "200000", "200000 0", "-5 100000", " "})
        EXPECT_EQ(usable_cores_from(16, 0, bad, 0, 0), 16) << "'" << bad << "' is no limit";
    EXPECT_EQ(usable_cores_from(1 << 30, 0, "9223372036854775807 1", 0, 0), 1 << 20) << "no overflow";
    EXPECT_EQ(usable_cores_from(1 << 30, 0, "9223372036854775807 2", 0, 0), 1 << 20) << "no overflow";
}

TEST(Cores, WithinTheMachine) {
    const int n = detail::usable_cores();
    EXPECT_GE(n, 1);
    cpu_set_t set;
    ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    EXPECT_LE(n, CPU_COUNT(&set));
}

/// Threads a 4096 x 4096 picture gets with Options::threads = 0 (one a 2^15 pixels, up to the cores).
int auto_threads_for_16_mpx() {
    std::vector<std::uint8_t> px(std::size_t(4096) * 4096, 1);
    std::uint32_t sink = 0;
    ImageView v;
    v.data = px.data();
    v.width = 4096;
    v.height = 4096;
    v.stride = 4096;
    v.format = PixelFormat::Binary8;
    return detail::make_request(v, &sink, Options{}).threads;
}

// The child's half of the next test: prints what it sees when run for it, else does nothing.
TEST(Cores, ChildReport) {
    if (!std::getenv("CCLABEL_TEST_CORES_CHILD")) GTEST_SKIP() << "runs only as Cores.PinnedProcessUsesItsCpus' child";
    std::printf("\nCORES %d THREADS %d\n", detail::usable_cores(), auto_threads_for_16_mpx());
    std::fflush(stdout);
}

TEST(Cores, PinnedProcessUsesItsCpus) {
    cpu_set_t mine;
    ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
    int first = 0;
    while (!CPU_ISSET(first, &mine)) ++first;
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // pinned to one CPU, then a fresh process (the core count is read once a process)
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        dup2(out[1], 1);
        if (sched_setaffinity(0, sizeof one, &one) != 0 || setenv("CCLABEL_TEST_CORES_CHILD", "1", 1) != 0) _exit(3);
        char filter[] = "--gtest_filter=Cores.ChildReport";
        char self[] = "/proc/self/exe";
        char* argv[] = {self, filter, nullptr};
        execv(self, argv);
        _exit(4);
    }
    close(out[1]);
    std::string text;
    char buf[4096];
    for (ssize_t k; (k = read(out[0], buf, sizeof buf)) > 0;) text.append(buf, std::size_t(k));
    close(out[0]);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status << ": " << text;
    int cores = -1, threads = -1;
    const auto at = text.find("CORES ");
    ASSERT_NE(at, std::string::npos) << text;
    ASSERT_EQ(std::sscanf(text.c_str() + at, "CORES %d THREADS %d", &cores, &threads), 2) << text;
    EXPECT_EQ(cores, 1);
    EXPECT_EQ(threads, 1) << "threads = 0 on a process pinned to one CPU";
}

}  // namespace
}  // namespace cclabel::test
