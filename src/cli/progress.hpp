#pragma once
// A one-line progress bar on a terminal, nothing otherwise.
#include <cstddef>
#include <cstdio>
#include <string>

namespace cclabel::cli {

class Progress {
public:
    Progress(std::size_t total, bool enabled) : total_(total), enabled_(enabled) {}
    void step(const std::string& name) {
        ++done_;
        if (!enabled_) return;
        constexpr int kWidth = 30;
        const int filled = int(kWidth * done_ / (total_ ? total_ : 1));
        std::fprintf(stderr, "\r[%s%s] %zu/%zu %s\x1b[K", std::string(std::size_t(filled), '#').c_str(),
                     std::string(std::size_t(kWidth - filled), ' ').c_str(), done_, total_, name.c_str());
        std::fflush(stderr);
        shown_ = true;
    }
    void clear() {
        if (!shown_) return;
        std::fprintf(stderr, "\r\x1b[K");
        std::fflush(stderr);
        shown_ = false;
    }

private:
    std::size_t total_, done_ = 0;
    bool enabled_, shown_ = false;
};

}  // namespace cclabel::cli
