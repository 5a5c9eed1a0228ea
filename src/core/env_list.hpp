#pragma once
// Whether a comma-separated list in an environment variable names an item: the benchmark's
// switches (CCLABEL_CLI_OFF, CCLABEL_VOLUME_OFF, CCLABEL_ADJACENCY_OFF / _TRY) are such lists.
#include <cstdlib>
#include <string_view>

namespace cclabel::detail {

/// Walks the items between commas (string_view, no copies: GCC 12 warned of a bogus overlap in the
/// inlined concatenations of a copying version).
inline bool env_list_has(const char* variable, const char* item) {
    const char* v = std::getenv(variable);
    if (v == nullptr) return false;
    const std::string_view want(item);
    std::string_view rest(v);
    for (;;) {
        const std::size_t comma = rest.find(',');
        if (rest.substr(0, comma) == want) return true;
        if (comma == std::string_view::npos) return false;
        rest.remove_prefix(comma + 1);
    }
}

}  // namespace cclabel::detail
