#pragma once
// How many cores this process may use: what Options::threads = 0 means, and what the CPU pool's
// spinning is measured against. std::thread::hardware_concurrency counts the machine's online CPUs,
// which overstates what a process pinned by taskset, a Slurm or Kubernetes cpuset, or a container's
// CPU quota (docker --cpus) can run at once; threads beyond that only take turns, and a thread
// spinning while it waits for one of them takes the core it needs.
namespace cclabel::detail {

/// The smallest of: the machine's online CPUs, the CPUs in this process's affinity mask (Linux), and
/// the cgroup v2 or v1 CPU quota rounded up. At least 1. Read once, at the first call.
int usable_cores() noexcept;

/// The same from given facts, for tests: @p online CPUs, @p affinity the affinity mask's CPUs (0:
/// unknown), @p quota_text the cgroup v2 cpu.max text ("max 100000", "150000 100000"; empty:
/// none), @p v1_quota_us and @p v1_period_us the cgroup v1 values (quota -1 or 0: none).
int usable_cores_from(int online, int affinity, const char* quota_text, long long v1_quota_us,
                      long long v1_period_us) noexcept;

}  // namespace cclabel::detail
