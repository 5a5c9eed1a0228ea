#pragma once
// --memory-budget SIZE and the memory this machine has free: what decides whether `cclabel label`
// reads a TIFF page whole or streams it band by band (src/cli/streamed.hpp).
#include <cstdint>
#include <string>

namespace cclabel::cli {

/// Parses a byte count: a positive integer with an optional binary suffix K, M, G or T (KiB, MiB,
/// GiB, TiB; "KB"/"KiB" spellings accepted, any case), e.g. "512M", "8GiB", "1048576". Throws
/// cclabel::Error with a one-line reason for anything else (0, negatives, fractions, overflow).
std::uint64_t parse_size(const std::string& text);

/// "1.5 GiB", "512.0 MiB", "900 B".
std::string format_size(std::uint64_t bytes);

/// The memory available to a new allocation now (MemAvailable of /proc/meminfo, else the free
/// physical pages); 0 when unknown.
std::uint64_t available_memory();

}  // namespace cclabel::cli
