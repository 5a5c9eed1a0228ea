#pragma once
// The CLI's own ideas, each of which a benchmark can turn off (CCLABEL_CLI_OFF=name,name):
// "hugepages" (outputs of 32 MiB and more on transparent huge pages, output_buffer.hpp) and "ahead"
// (auto's GPU rates measured while the first picture decodes, label_command.cpp).
#include "core/env_list.hpp"

namespace cclabel::cli {

inline bool cli_switch_off(const char* name) { return cclabel::detail::env_list_has("CCLABEL_CLI_OFF", name); }

}  // namespace cclabel::cli
