#include "cli/stats_csv.hpp"

#include <cstdio>
#include <memory>

#include "cclabel/error.hpp"

namespace cclabel::cli {

void write_stats_csv(const std::string& path, const std::vector<RegionStats>& stats) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "w"), &std::fclose);
    if (!f) throw Error(path + ": cannot write the statistics file");
    std::fprintf(f.get(), "label,area,x,y,width,height,cx,cy,perimeter,value\n");
    for (std::size_t l = 0; l < stats.size(); ++l) {
        const RegionStats& s = stats[l];
        // Centroids with all their digits, so that a reader gets the same doubles back.
        std::fprintf(f.get(), "%zu,%llu,%lld,%lld,%lld,%lld,%.17g,%.17g,%llu,%u;%u;%u;%u\n", l,
                     static_cast<unsigned long long>(s.area), static_cast<long long>(s.x), static_cast<long long>(s.y),
                     static_cast<long long>(s.width), static_cast<long long>(s.height), s.cx, s.cy,
                     static_cast<unsigned long long>(s.perimeter), s.value[0], s.value[1], s.value[2], s.value[3]);
    }
    if (std::fflush(f.get()) != 0 || std::ferror(f.get())) throw Error(path + ": error while writing the statistics file");
}

}  // namespace cclabel::cli
