#pragma once
// Why a parallel call ran on fewer threads than it asked for, on stderr, when CCLABEL_TRACE_THREADS
// is set (to anything but 0). The reasons (a descheduled spinner, a late worker, other processes'
// calls, this process's other calls) depend on what else the machine runs at that moment, so a
// benchmark that finds a CPU call slower than it should be runs again with this set rather than
// guessing. Off, it costs one relaxed load per call.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace cclabel::cpu {

inline bool trace_threads() noexcept {
    static const bool on = [] {
        const char* v = std::getenv("CCLABEL_TRACE_THREADS");
        return v != nullptr && *v != '\0' && !(v[0] == '0' && v[1] == '\0');
    }();
    return on;
}

/// One line: what a waiting thread saw (a mark of the machine as oversubscribed, and why, or a
/// deschedule that did not mark it) and how long it waited for its core.
inline void trace_mark(const char* source, std::int64_t waited_ns) noexcept {
    if (trace_threads()) std::fprintf(stderr, "cclabel threads: %s (%.0f us)\n", source, double(waited_ns) * 1e-3);
}

}  // namespace cclabel::cpu
