#pragma once
// The cores of the machine shared by every process that labels on it. A process counts the threads
// of its own parallel calls (spin_wait.hpp), but not those of other processes: four batch jobs on
// two cores, each taking both cores for each call, run eight threads that take turns, and each
// call waits for bands whose threads the OS is not running. So each process also publishes, in a
// small file in shared memory (/dev/shm, else $XDG_RUNTIME_DIR), how many threads its calls use
// now, and a call takes only the cores that the other processes' calls leave (at least one thread:
// the caller's own).
//
// The file is an array of slots, one a process, each one 64-bit word: the owner's pid and its
// threads in calls. A word is changed only by compare-and-swap that checks the pid, so a slot taken
// over by another process is never written by its former owner. A process that dies in a call (a
// crash, a kill) never gives its threads back: a reader that finds a busy slot whose pid no longer
// exists frees it. Publishing and reading are ordered (a call adds its threads to its slot, then
// reads the others), so of two calls starting together at least one sees the other; both may see
// each other and both take fewer threads, never both take all the cores.
//
// Where the file cannot be made (no /dev/shm, a read-only or full file system, a file of someone
// else's, all slots taken), a process works without it, as if alone on the machine; the
// oversubscription detection of spin_wait.hpp still stops it spinning. CCLABEL_MACHINE_BUDGET=0 in
// the environment turns it off (for benchmarks that compare with and without).
//
// The file is per user and per set of CPUs that the process may run on: a file writable by every
// user would let any of them make everyone's calls single-threaded; processes pinned to disjoint
// CPUs (two Slurm jobs' cpusets) do not compete, and processes pinned to the same ones (a job run
// under taskset, a container) share those. Its cores are the process's usable cores (cores.hpp). A pid taken by a new process after its owner died keeps a crashed slot busy
// until that process ends too (pids are reused only after the kernel has handed out pid_max
// others).
#include <atomic>
#include <cstdint>
#include <string>

namespace cclabel::cpu {

/// Threads a call of @p parts parts takes, from given facts: @p process_cores the cores this process
/// may use, @p machine_cores the cores of the machine (0: no machine budget), @p others the threads
/// other processes' calls use now, @p in_calls the threads of this process's calls now, @p nested
/// whether the calling thread is one of those already (a call from inside a part). At least 1, at
/// most @p parts.
int threads_to_take(int parts, int process_cores, int machine_cores, int others, int in_calls, bool nested) noexcept;

/// Whether a process is alive (kill(pid, 0) finds it); replaced in tests.
using PidAlive = bool (*)(int pid);
bool pid_alive(int pid) noexcept;

/// One process's view of the machine's shared budget file.
class MachineBudget {
public:
    static constexpr int kSlots = 256;

    /// Opens, or creates, the budget file at @p path (unusable when it cannot) for the process
    /// @p pid, on a machine of @p cores cores; @p alive tells which pids still exist.
    MachineBudget(const char* path, int cores, int pid, PidAlive alive = pid_alive) noexcept;
    ~MachineBudget();
    MachineBudget(const MachineBudget&) = delete;
    MachineBudget& operator=(const MachineBudget&) = delete;

    /// False when the file could not be opened or mapped, or no slot was free: then others() is 0.
    bool usable() const noexcept { return slot_.load(std::memory_order_relaxed) != nullptr; }
    int cores() const noexcept { return cores_; }
    int pid() const noexcept { return pid_; }

    /// Adds @p delta (negative to give back) to this process's threads in calls.
    void add(int delta) noexcept;
    /// This process's threads in calls, as published.
    int mine() const noexcept;
    /// Threads that other live processes' calls use now; frees the slots of dead processes.
    int others() noexcept;
    /// Slots held by processes (live or not yet found dead), for tests.
    int slots_held() const noexcept;

private:
    struct Shared;
    bool claim() noexcept;

    Shared* shared_ = nullptr;
    std::atomic<std::uint64_t*> slot_{nullptr};  // changes only if another process took it over
    int cores_;
    int pid_;
    PidAlive alive_;
};

/// This process's budget (opened at the first call, again in a forked child), or null when it is
/// turned off (CCLABEL_MACHINE_BUDGET=0) or unusable.
MachineBudget* machine_budget() noexcept;

/// The name of this process's budget file (in /dev/shm or $XDG_RUNTIME_DIR), for tests.
std::string machine_budget_name();

}  // namespace cclabel::cpu
