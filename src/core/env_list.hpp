#pragma once
// Whether a comma-separated list in an environment variable names an item: the benchmark's
// switches (CCLABEL_CLI_OFF, CCLABEL_VOLUME_OFF, CCLABEL_ADJACENCY_OFF / _TRY) are such lists.
#include <cstdlib>
#include <string>

namespace cclabel::detail {

inline bool env_list_has(const char* variable, const char* item) {
    const char* v = std::getenv(variable);
    if (v == nullptr) return false;
    return ("," + std::string(v) + ",").find("," + std::string(item) + ",") != std::string::npos;
}

}  // namespace cclabel::detail
