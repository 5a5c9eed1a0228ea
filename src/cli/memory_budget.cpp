#include "cli/memory_budget.hpp"

#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cclabel/error.hpp"

namespace cclabel::cli {

std::uint64_t parse_size(const std::string& text) {
    const std::string bad = "bad --memory-budget '" + text + "': ";
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    if (digits == 0) throw Error(bad + "expected a byte count such as 512M, 8G or 1048576");
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + digits, v, 10);
    if (ec != std::errc() || p != text.data() + digits) throw Error(bad + "the number is too large");
    std::string unit = text.substr(digits);
    for (char& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
    int shift = 0;
    if (unit.empty() || unit == "B") shift = 0;
    else if (unit == "K" || unit == "KB" || unit == "KIB") shift = 10;
    else if (unit == "M" || unit == "MB" || unit == "MIB") shift = 20;
    else if (unit == "G" || unit == "GB" || unit == "GIB") shift = 30;
    else if (unit == "T" || unit == "TB" || unit == "TIB") shift = 40;
    else throw Error(bad + "unknown unit '" + text.substr(digits) + "' (use K, M, G or T)");
    if (v == 0) throw Error(bad + "must be at least 1 byte");
    if (v > (~std::uint64_t(0) >> shift)) throw Error(bad + "the number is too large");
    return v << shift;
}

std::string format_size(std::uint64_t bytes) {
    static const char* const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) return std::to_string(bytes) + " B";
    double v = double(bytes) / 1024;
    int u = 0;
    while (v >= 1024 && u < 3) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

std::uint64_t available_memory() {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("MemAvailable:", 0) != 0) continue;
        std::istringstream fields(line.substr(13));
        std::uint64_t kib = 0;
        if (fields >> kib) return kib << 10;
    }
    const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? std::uint64_t(pages) * std::uint64_t(size) : 0;
}

}  // namespace cclabel::cli
