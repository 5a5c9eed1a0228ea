#pragma once
// The CLI's own ideas, each of which a benchmark can turn off (CCLABEL_CLI_OFF=name,name):
// "hugepages" (outputs of 32 MiB and more on transparent huge pages, output_buffer.hpp) and "ahead"
// (auto's GPU rates measured while the first picture decodes, label_command.cpp). Read once.
#include <cstdlib>
#include <string>

namespace cclabel::cli {

inline bool cli_switch_off(const char* name) {
    static const std::string off = [] {
        const char* v = std::getenv("CCLABEL_CLI_OFF");
        return "," + std::string(v ? v : "") + ",";
    }();
    return off.find("," + std::string(name) + ",") != std::string::npos;
}

}  // namespace cclabel::cli
