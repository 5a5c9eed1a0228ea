#pragma once
// Where an input page's outputs go: -o names the file itself for one input and a folder (receiving
// <stem>.<ext>) for several; a page of a multi-page input (PDF, multi-page TIFF) adds -pNNN to the
// stem (drawings.pdf -o out.npy → out-p001.npy, out-p002.npy, ...).
#include <cstdio>
#include <filesystem>
#include <string>

namespace cclabel::cli {

inline std::string output_name(const std::string& out, const std::string& input, bool many, const std::string& ext,
                               int page, int pages) {
    namespace fs = std::filesystem;
    if (out.empty()) return {};
    fs::path p = many ? fs::path(out) / (fs::path(input).stem().string() + "." + ext) : fs::path(out);
    if (pages <= 1) return p.string();
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "-p%03d", page + 1);
    return (p.parent_path() / (p.stem().string() + suffix + p.extension().string())).string();
}

/// How a page is named in messages: the file, and "page N/M" when it has several.
inline std::string page_name(const std::string& input, int page, int pages) {
    return pages <= 1 ? input : input + " page " + std::to_string(page + 1) + "/" + std::to_string(pages);
}

}  // namespace cclabel::cli
