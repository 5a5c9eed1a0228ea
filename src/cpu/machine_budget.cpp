// The machine-wide core budget: see machine_budget.hpp.
#include "cpu/machine_budget.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "core/cores.hpp"

namespace cclabel::cpu {

static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free && std::atomic_ref<std::uint32_t>::is_always_lock_free,
              "atomics shared between processes must be lock-free (address-free)");

int threads_to_take(int parts, int process_cores, int machine_cores, int others, int in_calls, bool nested) noexcept {
    if (parts <= 1) return 1;
    const int own = nested ? 1 : 0;  // a nested call's thread is counted in its caller's
    int free = process_cores - in_calls + own;
    if (machine_cores > 0) free = std::min(free, machine_cores - others - in_calls + own);
    return std::clamp(free, 1, parts);
}

bool pid_alive(int pid) noexcept { return pid > 0 && (kill(pid_t(pid), 0) == 0 || errno == EPERM); }

// The file's layout. Zero bytes (a new file) are a valid state: no slot held. A slot has a cache
// line of its own, so that processes updating their own counts do not slow each other down.
struct MachineBudget::Shared {
    alignas(64) std::uint32_t slots_used;  // slots [0, slots_used) have been handed out at least once
    struct alignas(64) Slot {
        std::uint64_t word;  // pid << 32 | threads in calls; 0: free
    } slots[kSlots];
};

namespace {

using Word = std::uint64_t;
constexpr Word word_of(int pid, std::uint32_t threads) { return Word(std::uint32_t(pid)) << 32 | threads; }
constexpr int pid_of(Word w) { return int(std::uint32_t(w >> 32)); }
constexpr int threads_of(Word w) { return int(std::min<std::uint32_t>(std::uint32_t(w), 1u << 20)); }

std::atomic_ref<Word> at(std::uint64_t& w) { return std::atomic_ref<Word>(w); }

}  // namespace

MachineBudget::MachineBudget(const char* path, int cores, int pid, PidAlive alive) noexcept
    : cores_(cores), pid_(pid), alive_(alive) {
    if (path == nullptr || *path == '\0' || pid <= 0) return;
    const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return;
    struct stat st {};
    void* p = MAP_FAILED;
    // Another user's file, or not a plain file: not ours to trust. A file too small is grown with
    // zeros (free slots); posix_fallocate, unlike ftruncate, fails on a full /dev/shm instead of
    // leaving pages whose first touch would kill the process (SIGBUS).
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        (st.st_size >= off_t(sizeof(Shared)) || posix_fallocate(fd, 0, off_t(sizeof(Shared))) == 0))
        p = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return;
    shared_ = static_cast<Shared*>(p);
    if (!claim()) {
        munmap(shared_, sizeof(Shared));
        shared_ = nullptr;
    }
}

MachineBudget::~MachineBudget() {
    if (std::uint64_t* s = slot_.load()) {
        Word w = at(*s).load();
        if (pid_of(w) == pid_) at(*s).compare_exchange_strong(w, 0);
    }
    if (shared_ != nullptr) munmap(shared_, sizeof(Shared));
}

/// Takes a free slot, or one whose process is dead (a slot with this pid is a dead process's too:
/// this process has none yet), for this process with no threads in calls.
bool MachineBudget::claim() noexcept {
    std::atomic_ref<std::uint32_t> used(shared_->slots_used);
    for (int i = 0; i < kSlots; ++i) {
        std::uint32_t u = used.load();
        if (std::uint32_t(i) >= u) {  // hand out a new slot
            if (u >= std::uint32_t(kSlots)) return false;
            if (!used.compare_exchange_strong(u, std::max(u, std::uint32_t(i) + 1))) {
                --i;  // another process handed out one: look at slot i again
                continue;
            }
        }
        std::uint64_t& s = shared_->slots[i].word;
        Word w = at(s).load();
        const int owner = pid_of(w);
        if ((owner == 0 || owner == pid_ || !alive_(owner)) && at(s).compare_exchange_strong(w, word_of(pid_, 0))) {
            slot_.store(&s);
            return true;
        }
    }
    return false;
}

void MachineBudget::add(int delta) noexcept {
    std::uint64_t* mine = slot_.load(std::memory_order_relaxed);
    if (mine == nullptr || delta == 0) return;
    auto s = at(*mine);
    for (Word w = s.load();;) {
        if (pid_of(w) != pid_) {
            // Taken over by a process that found this one dead (it cannot be; unless pids are
            // namespaced): take a slot again, starting from nothing in calls.
            if (!claim()) {
                slot_.store(nullptr);
                return;
            }
            return add(std::max(delta, 0));
        }
        const Word next = word_of(pid_, std::uint32_t(std::max(0, int(std::uint32_t(w)) + delta)));
        if (s.compare_exchange_weak(w, next)) return;  // seq_cst: published before others() reads
    }
}

int MachineBudget::mine() const noexcept {
    std::uint64_t* s = slot_.load(std::memory_order_relaxed);
    return s == nullptr ? 0 : threads_of(at(*s).load());
}

int MachineBudget::others() noexcept {
    if (shared_ == nullptr) return 0;
    const int used = int(std::min<std::uint32_t>(std::atomic_ref<std::uint32_t>(shared_->slots_used).load(), kSlots));
    const std::uint64_t* mine = slot_.load(std::memory_order_relaxed);
    int sum = 0;
    for (int i = 0; i < used; ++i) {
        std::uint64_t& s = shared_->slots[i].word;
        if (&s == mine) continue;
        Word w = at(s).load();
        const int owner = pid_of(w), threads = threads_of(w);
        if (owner == 0 || threads == 0) continue;  // a dead process's idle slot is freed when claimed
        if (alive_(owner))
            sum += threads;
        else
            at(s).compare_exchange_strong(w, 0);  // died in a call: its threads are free
    }
    return sum;
}

int MachineBudget::slots_held() const noexcept {
    if (shared_ == nullptr) return 0;
    int held = 0;
    for (auto& slot : shared_->slots) held += pid_of(at(slot.word).load()) != 0;
    return held;
}

namespace {

/// The CPUs this process may run on, as a name: processes pinned to the same CPUs (a job started
/// with taskset, a container's or a Slurm job's cpuset) share their cores; processes on disjoint
/// CPUs do not take cores from each other, and keep apart.
std::string cpu_set_name() {
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a over the numbers of the allowed CPUs
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set)) h = (h ^ std::uint64_t(c)) * 1099511628211ull;
#endif
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

/// The budget file: per user and set of CPUs, in shared memory, else in the user's runtime
/// directory. Its cores are this process's usable cores (the CPUs, less a cgroup quota).
MachineBudget* open_budget(int pid) {
    const int cores = detail::usable_cores();
    const std::string name = machine_budget_name();
    auto* b = new MachineBudget(("/dev/shm/" + name).c_str(), cores, pid);
    if (!b->usable())
        if (const char* run = std::getenv("XDG_RUNTIME_DIR"); run != nullptr && *run == '/') {
            delete b;
            b = new MachineBudget((std::string(run) + "/" + name).c_str(), cores, pid);
        }
    return b;
}

bool turned_off() {
    const char* v = std::getenv("CCLABEL_MACHINE_BUDGET");
    return v != nullptr && std::strcmp(v, "0") == 0;
}

struct Budgets {  // this process's budget, and the one of the process it was forked from, kept reachable
    MachineBudget* budget;
    [[maybe_unused]] Budgets* parent;
};
constinit std::atomic<Budgets*> current_budget{nullptr};
constinit std::mutex budget_creation;

}  // namespace

std::string machine_budget_name() { return "cclabel-cores-v1-" + std::to_string(geteuid()) + "-" + cpu_set_name(); }

MachineBudget* machine_budget() noexcept {
    static const bool off = turned_off();
    if (off) return nullptr;
    const int pid = int(getpid());
    Budgets* b = current_budget.load(std::memory_order_acquire);
    // After fork() the child has its parent's budget, whose slot is the parent's: it takes its own.
    if (b == nullptr || b->budget->pid() != pid) {
        try {
            const std::lock_guard<std::mutex> lock(budget_creation);
            b = current_budget.load(std::memory_order_acquire);
            if (b == nullptr || b->budget->pid() != pid) {
                b = new Budgets{open_budget(pid), b};  // never freed: threads may be using it at exit
                current_budget.store(b, std::memory_order_release);
            }
        } catch (...) {
            return nullptr;
        }
    }
    return b->budget->usable() ? b->budget : nullptr;
}

}  // namespace cclabel::cpu
