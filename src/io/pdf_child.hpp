#pragma once
// A forked child process bounded in processor time, wall time and address space, that hands its
// result back through a pipe (POSIX). The PDF reader (pdf_reader.cpp) runs every Poppler call on
// a file's bytes in one: opening the file in one child, each page's drawing in another, so that a
// file that makes Poppler loop, allocate without end or crash costs the caller an Error, never
// its time, its memory or its process. Nothing here knows about Poppler.
#include <cstdint>
#include <functional>
#include <string>

#if defined(__unix__) || defined(__APPLE__)
#define CCLABEL_PDF_CHILD 1
#else
#define CCLABEL_PDF_CHILD 0
#endif

namespace cclabel::io::detail {

#if CCLABEL_PDF_CHILD

struct ChildLimits {
    double seconds = 0;        ///< processor seconds (0: no limit)
    std::uint64_t memory = 0;  ///< address space beyond what the child inherits
};

/// The processor time a child may use is enforced twice: the caller stops it once its processor
/// clock passes `seconds` (or once this many times as long has passed on the wall clock: a child
/// that waits, or that a loaded machine gives under a tenth of a core), and RLIMIT_CPU ends it a
/// second later by itself, should the caller be stopped. 5x was too few: with builds and a fuzzer
/// beside it on the 2-core machine a renderer got 19% of a core.
inline constexpr double kChildWallFactor = 10.0;

/// How a child ended.
struct ChildOutcome {
    enum class End {
        reported,        ///< it handed back a whole result
        died,            ///< it ended without one (a signal, an exit): see `status`
        late_processor,  ///< stopped at its processor time
        late_wall,       ///< stopped by the clock (`cpu_at_deadline` says how much it had used)
    };
    End end = End::died;
    bool ok = false;              ///< reported: whether its work succeeded
    std::string result;           ///< reported: what it handed back (the reason, when not ok)
    int status = 0;               ///< its wait status
    double cpu_seconds = 0;       ///< the processor time it used, whatever the end
    double cpu_at_deadline = 0;   ///< late_wall: what it had used when the clock stopped it
    bool processor_clock = true;  ///< false where the system cannot read a child's processor time: the limit was on the clock
};

/// What the work in the child returns: ok with its result, or not ok with the reason.
struct ChildWork {
    bool ok = false;
    std::string result;
};

/// Runs @p work in a forked child under @p limits and returns how it ended; the child is killed
/// and reaped, and its pipe closed, before this returns or throws. @p work runs with the default
/// signal handlers, no core dump, RLIMIT_CPU and RLIMIT_AS in force; std::bad_alloc from it
/// becomes a result saying "out of memory while <doing>", any other exception "<doing> failed".
/// Memory that @p work writes for the caller must be a MAP_SHARED mapping made before this call.
/// Throws Error naming @p path only when no child could be started.
ChildOutcome run_in_child(const std::string& path, const ChildLimits& limits, const std::string& doing,
                          const std::function<ChildWork()>& work);

/// "stopped on signal 11 (Segmentation fault)" and the like, for a child that died: the CPU limit
/// and the memory limit named where they are the likely cause.
std::string child_death(const ChildOutcome& outcome, const ChildLimits& limits);

/// One decimal, as the messages give seconds.
std::string one_decimal(double x);

/// Seconds as the messages give them: one decimal, or two below 0.095 s, where one decimal would
/// say "0.0" of a limit that is not nothing (a later page of a small PDF: pdf_reader.cpp).
std::string seconds_text(double x);

#endif  // CCLABEL_PDF_CHILD

}  // namespace cclabel::io::detail
