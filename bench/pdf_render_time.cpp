// Times PageReader on PDF pages as the library renders them (the forked loader and renderer
// included), for the budget of src/io/pdf_reader.cpp: bench/pdf_pages.py runs it on legitimate PDFs.
//   cclabel_pdf_time REPS DPI FILE...
// One tab-separated line a file: name, bytes, dpi, width, height, then the wall seconds (min,
// median, max) and the children's processor seconds (the loader's and the renderer's; min, max)
// of REPS openings and reads of page 1, and the error of the last read ("" when it rendered). Set
// CCLABEL_PDF_RENDER_SECONDS=0 to time pages the budget would refuse.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/io.hpp"

namespace {

double child_cpu_seconds() {
    rusage r{};
    ::getrusage(RUSAGE_CHILDREN, &r);
    const auto s = [](const timeval& v) { return double(v.tv_sec) + double(v.tv_usec) * 1e-6; };
    return s(r.ru_utime) + s(r.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: cclabel_pdf_time REPS DPI FILE...\n");
        return 2;
    }
    const int reps = std::max(1, std::atoi(argv[1]));
    const double dpi = std::atof(argv[2]);
    for (int a = 3; a < argc; ++a) {
        std::vector<double> wall, cpu;
        std::string error;
        long long w = 0, h = 0;
        for (int r = 0; r < reps; ++r) {
            const double cpu0 = child_cpu_seconds();
            const auto t0 = std::chrono::steady_clock::now();
            error.clear();
            try {
                cclabel::io::PageReader reader(argv[a], cclabel::io::PageOptions{dpi});
                const cclabel::io::Page p = reader.read(0);
                w = p.view().width;
                h = p.view().height;
            } catch (const cclabel::Error& e) {
                error = e.what();
            }
            wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            cpu.push_back(child_cpu_seconds() - cpu0);
        }
        std::sort(wall.begin(), wall.end());
        std::sort(cpu.begin(), cpu.end());
        std::printf("%s\t%llu\t%g\t%lld\t%lld\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n",
                    std::filesystem::path(argv[a]).filename().c_str(), (unsigned long long)std::filesystem::file_size(argv[a]), dpi, w, h,
                    wall.front(), wall[wall.size() / 2], wall.back(), cpu.front(), cpu.back(), error.c_str());
        std::fflush(stdout);
    }
}
