// The bounded child of pdf_child.hpp: fork, limits, a report through a pipe, a deadline on the
// child's processor clock with the wall clock as backstop, and a child that is always reaped.
#include "io/pdf_child.hpp"

#if CCLABEL_PDF_CHILD
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "io/io_common.hpp"

namespace cclabel::io::detail {
namespace {

/// The report: a status byte (0: ok), a 4-byte little-endian length, then the result. A result
/// may be larger than the pipe holds (a document's page sizes); the caller reads while the child
/// writes.
constexpr std::size_t kReportHeader = 5;
/// Past this the report is taken as a broken child: a million pages' sizes fit well within.
constexpr std::size_t kMaxReport = std::size_t(32) << 20;

/// The child's address space now, in bytes (0 when /proc cannot say): the memory limit is set
/// above what it inherited. Plain system calls only.
std::uint64_t address_space_bytes() {
    const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[64] = {};
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return 0;
    return std::strtoull(buf, nullptr, 10) * std::uint64_t(::sysconf(_SC_PAGESIZE));
}

void write_all(int fd, const char* data, std::size_t n) {
    for (std::size_t done = 0; done < n;) {
        const ssize_t k = ::write(fd, data + done, n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return;  // the caller has gone or stopped listening
        done += std::size_t(k);
    }
}

[[noreturn]] void report_and_exit(int fd, bool ok, const std::string& result) {
    const std::size_t n = std::min(result.size(), kMaxReport);
    char header[kReportHeader] = {char(ok ? 0 : 1)};
    for (int i = 0; i < 4; ++i) header[1 + i] = char((n >> (8 * i)) & 0xFF);
    write_all(fd, header, kReportHeader);
    write_all(fd, result.data(), n);
    ::_exit(0);
}

/// Closes every descriptor the child inherited but the standard streams and @p keep. Another
/// thread of the caller may fork its own child while this one's pipe is open: that sibling holds
/// the write end then, and the caller would not see this child die without a report until the
/// sibling ended too. Every child keeps only its own end.
void close_inherited_descriptors(int keep) {
    constexpr unsigned first = 3;
#if defined(SYS_close_range)
    const unsigned k = unsigned(keep);
    const bool below = k <= first || ::syscall(SYS_close_range, first, k - 1, 0) == 0;
    if (below && ::syscall(SYS_close_range, k + 1, ~0u, 0) == 0) return;
#endif
    // Without close_range: each descriptor up to the soft limit (bounded: a child of a caller
    // allowed millions would spend its time here).
    rlimit files{};
    const rlim_t last = ::getrlimit(RLIMIT_NOFILE, &files) == 0 ? std::min<rlim_t>(files.rlim_cur, 1 << 16) : 1024;
    for (rlim_t d = first; d < last; ++d) {
        if (int(d) != keep) ::close(int(d));
    }
}

/// The child: limits, the work, its report, _exit (fork copied only the calling thread; nothing
/// of the caller's is unwound or flushed).
[[noreturn]] void child_main(int fd, const ChildLimits& limits, const std::string& doing, const std::function<ChildWork()>& work) {
    close_inherited_descriptors(fd);
    // The caller's handlers (an interpreter's fault handler, its Ctrl-C flag) are not the child's.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU, SIGINT, SIGTERM, SIGPIPE}) ::signal(sig, SIG_DFL);
    sigset_t all;
    sigfillset(&all);
    ::sigprocmask(SIG_UNBLOCK, &all, nullptr);
    if (limits.seconds > 0) {
        rlimit cpu{};
        cpu.rlim_cur = rlim_t(std::ceil(limits.seconds)) + 1;
        cpu.rlim_max = cpu.rlim_cur + 1;  // SIGXCPU at the soft limit, SIGKILL a second later
        ::setrlimit(RLIMIT_CPU, &cpu);
    }
    // A child that crashes is reported; a core dump of what it copied of the caller is not wanted.
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    if (const std::uint64_t now = address_space_bytes(); now != 0) {
        rlimit as{};
        as.rlim_cur = as.rlim_max = rlim_t(now + limits.memory);
        ::setrlimit(RLIMIT_AS, &as);
    }
    try {
        const ChildWork w = work();
        report_and_exit(fd, w.ok, w.result);
    } catch (const std::bad_alloc&) {
        report_and_exit(fd, false, "out of memory while " + doing + " (the limit is " + std::to_string(limits.memory >> 20) +
                                       " MiB beyond the caller's own)");
    } catch (...) {
        report_and_exit(fd, false, doing + " failed");
    }
}

double seconds_of(const rusage& use) {
    return double(use.ru_utime.tv_sec + use.ru_stime.tv_sec) + double(use.ru_utime.tv_usec + use.ru_stime.tv_usec) * 1e-6;
}

/// Kills and reaps the child unless it was reaped already (any early exit of the caller's wait).
struct ChildProcess {
    pid_t pid = -1;
    int status = 0;
    bool reaped = false;
    double cpu_seconds = 0;  ///< the processor time it used, once reaped
    void kill() {
        if (pid > 0 && !reaped) ::kill(pid, SIGKILL);
    }
    /// Waits for it (@p block) or only looks; true once it is reaped, its status and time kept.
    bool reap(bool block = true) {
        if (pid <= 0 || reaped) return reaped;
        rusage use{};
        pid_t got;
        while ((got = ::wait4(pid, &status, block ? 0 : WNOHANG, &use)) < 0 && errno == EINTR) {
        }
        reaped = got == pid;
        if (reaped) cpu_seconds = seconds_of(use);
        return reaped;
    }
    ~ChildProcess() {
        kill();
        reap();
    }
};

struct FdPair {
    int fd[2] = {-1, -1};
    void close(int i) {
        if (fd[i] >= 0) ::close(fd[i]);
        fd[i] = -1;
    }
    ~FdPair() {
        close(0);
        close(1);
    }
};

/// Reads the child's report into @p got until it is whole (true), or until the child has closed
/// the pipe without one or used up its time (false; then @p end says which). The limit is on the
/// child's processor time (@p cpu_clock), so that a busy machine, which gives the child less of a
/// core, does not make the work too expensive; the wall clock only stops a child that runs too
/// little to reach it (stopped, or waiting). Without @p cpu_clock the limit is on the wall clock.
bool read_report(int fd, double seconds, const clockid_t* cpu_clock, std::string& got, ChildOutcome::End& end) {
    using Clock = std::chrono::steady_clock;
    const bool timed = seconds > 0;
    const double wall = cpu_clock != nullptr ? seconds * kChildWallFactor : seconds;
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wall));
    for (;;) {
        if (got.size() >= kReportHeader) {
            std::size_t n = 0;
            for (int i = 0; i < 4; ++i) n |= std::size_t(std::uint8_t(got[1 + i])) << (8 * i);
            if (n > kMaxReport) return false;
            if (got.size() >= kReportHeader + n) return true;
        }
        int timeout_ms = -1;
        if (timed) {
            double left = std::chrono::duration<double>(deadline - Clock::now()).count();
            if (left <= 0) {
                end = ChildOutcome::End::late_wall;
                return false;
            }
            timespec used{};
            if (cpu_clock != nullptr && ::clock_gettime(*cpu_clock, &used) == 0) {
                const double cpu_left = seconds - (double(used.tv_sec) + double(used.tv_nsec) * 1e-9);
                if (cpu_left <= 0) {
                    end = ChildOutcome::End::late_processor;
                    return false;
                }
                // One thread's processor time grows no faster than the clock: nothing to check
                // before cpu_left has passed.
                left = std::min(left, cpu_left);
            }
            timeout_ms = int(std::clamp(std::ceil(left * 1000), 1.0, double(1 << 30)));
        }
        pollfd pfd{fd, POLLIN, 0};
        const int n = ::poll(&pfd, 1, timeout_ms);
        if (n < 0 && errno != EINTR) return false;
        if (n <= 0) continue;
        char buf[1 << 16];
        const ssize_t k = ::read(fd, buf, sizeof buf);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) return false;  // the child closed the pipe without a whole report
        got.append(buf, std::size_t(k));
    }
}

}  // namespace

std::string one_decimal(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x);
    return buf;
}

std::string seconds_text(double x) {
    if (x >= 0.095) return one_decimal(x);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", x);
    return buf;
}

ChildOutcome run_in_child(const std::string& path, const ChildLimits& limits, const std::string& doing,
                          const std::function<ChildWork()>& work) {
    FdPair fds;
    if (::pipe(fds.fd) != 0) fail(path, "cannot create a pipe for the PDF reader's child: " + std::string(std::strerror(errno)));
    for (int fd : fds.fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    ChildProcess child;
    child.pid = ::fork();
    if (child.pid < 0) fail(path, "cannot start the PDF reader's child: " + std::string(std::strerror(errno)));
    if (child.pid == 0) {
        ::close(fds.fd[0]);
        child_main(fds.fd[1], limits, doing, work);
    }
    fds.close(1);
    ChildOutcome out;
    clockid_t cpu_clock{};
#if defined(__linux__)
    out.processor_clock = limits.seconds > 0 && ::clock_getcpuclockid(child.pid, &cpu_clock) == 0;
#else
    out.processor_clock = false;
#endif
    std::string got;
    out.end = ChildOutcome::End::died;
    const bool whole = read_report(fds.fd[0], limits.seconds, out.processor_clock ? &cpu_clock : nullptr, got, out.end);
    // A child that died before the deadline was seen (its CPU limit while this process was
    // stopped, a crash) is reported as what it was, not as late.
    if (out.end != ChildOutcome::End::died && child.reap(false) && WIFSIGNALED(child.status)) out.end = ChildOutcome::End::died;
    if (out.end == ChildOutcome::End::late_wall && out.processor_clock) {
        timespec used{};
        if (::clock_gettime(cpu_clock, &used) == 0) out.cpu_at_deadline = double(used.tv_sec) + double(used.tv_nsec) * 1e-9;
    }
    child.kill();  // done, dead or late: either way it has nothing more to say
    child.reap();
    out.status = child.status;
    out.cpu_seconds = child.cpu_seconds;
    if (whole) {
        out.end = ChildOutcome::End::reported;
        out.ok = got[0] == 0;
        out.result = got.substr(kReportHeader);
    }
    return out;
}

std::string child_death(const ChildOutcome& outcome, const ChildLimits& limits) {
    const int status = outcome.status;
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        std::string m = "stopped on signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
        if (sig == SIGXCPU) m += ": it used more than its CPU time limit of " + one_decimal(std::ceil(limits.seconds) + 1) + " s";
        if (sig == SIGABRT || sig == SIGKILL) m += ", perhaps out of memory";
        return m;
    }
    return "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + " without a result";
}

}  // namespace cclabel::io::detail

#endif  // CCLABEL_PDF_CHILD
