#pragma once
// Tolerance joining (Options::tolerance) compares pixels by closeness, which only the CPU labeller
// of a whole picture does for now. Paths that join equal values only (the CUDA kernels, the tiles'
// seams) refuse a tolerance before any work rather than give exact-value labels silently, and say
// so in one form: "[caller: ]tolerance T is not yet supported <where>; <instead>".
#include <cstdint>
#include <string>
#include <string_view>

#include "cclabel/error.hpp"

namespace cclabel::detail {

inline void refuse_tolerance(std::uint32_t tolerance, std::string_view where, std::string_view instead,
                             std::string_view caller = {}) {
    if (tolerance == 0) return;
    std::string m;
    if (!caller.empty()) (m += caller) += ": ";
    m += "tolerance " + std::to_string(tolerance) + " is not yet supported ";
    ((m += where) += "; ") += instead;
    throw Error(m);
}

}  // namespace cclabel::detail
