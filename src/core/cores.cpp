// usable_cores: see cores.hpp.
#include "core/cores.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#ifdef __linux__
#include <sched.h>
#endif

namespace cclabel::detail {
namespace {

/// Cores a quota of @p quota microseconds every @p period allows, rounded up; 0 when none.
int quota_cores(long long quota, long long period) {
    if (quota <= 0 || period <= 0) return 0;
    return int(std::min<long long>(quota / period + (quota % period != 0), 1 << 20));
}

/// The first line of @p path, or "" when it cannot be read.
std::string first_line(const char* path) {
    std::ifstream in(path);
    std::string line;
    if (in) std::getline(in, line);
    return line;
}

long long number_in(const char* path) {
    const std::string s = first_line(path);
    if (s.empty()) return 0;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    return end == s.c_str() ? 0 : v;
}

int affinity_cpus() {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
    return 0;
}

int compute() {
    const int online = int(std::thread::hardware_concurrency());
#ifdef __linux__
    // Inside a container /sys/fs/cgroup is the container's own group, whose cpu.max is its quota; the
    // root group has no cpu.max, so a process on the host reads none.
    const std::string v2 = first_line("/sys/fs/cgroup/cpu.max");
    const long long q1 = v2.empty() ? number_in("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") : 0;
    const long long p1 = v2.empty() ? number_in("/sys/fs/cgroup/cpu/cpu.cfs_period_us") : 0;
    return usable_cores_from(online, affinity_cpus(), v2.c_str(), q1, p1);
#else
    return usable_cores_from(online, 0, "", 0, 0);
#endif
}

}  // namespace

int usable_cores_from(int online, int affinity, const char* quota_text, long long v1_quota_us,
                      long long v1_period_us) noexcept {
    int n = std::max(1, online);
    if (affinity > 0) n = std::min(n, affinity);
    if (quota_text && *quota_text) {
        std::istringstream in{std::string(quota_text)};
        std::string quota;
        long long period = 0;
        if (in >> quota >> period && quota != "max") {
            char* end = nullptr;
            const long long q = std::strtoll(quota.c_str(), &end, 10);
            if (end != quota.c_str() && *end == '\0')
                if (const int c = quota_cores(q, period)) n = std::min(n, c);
        }
    } else if (const int c = quota_cores(v1_quota_us, v1_period_us)) {
        n = std::min(n, c);
    }
    return std::max(1, n);
}

int usable_cores() noexcept {
    static const int cores = [] {
        try {
            return compute();
        } catch (...) {  // a stream that cannot allocate: the machine's count
            return std::max(1, int(std::thread::hardware_concurrency()));
        }
    }();
    return cores;
}

}  // namespace cclabel::detail
