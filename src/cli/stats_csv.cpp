#include "cli/stats_csv.hpp"

#include <memory>

#include "cclabel/error.hpp"
#include "cli/typed_values.hpp"

namespace cclabel::cli {

std::string format_value(const std::array<std::uint32_t, 4>& v, PixelFormat format) {
    if (is_typed_format(format)) return format_typed_value(v[0] | (std::uint64_t(v[1]) << 32), format);
    char buf[16];
    if (format == PixelFormat::RGB8) {
        std::snprintf(buf, sizeof buf, "#%02x%02x%02x", v[0] & 0xFF, v[1] & 0xFF, v[2] & 0xFF);
    } else if (format == PixelFormat::RGBA8) {
        std::snprintf(buf, sizeof buf, "#%02x%02x%02x%02x", v[0] & 0xFF, v[1] & 0xFF, v[2] & 0xFF, v[3] & 0xFF);
    } else {
        std::snprintf(buf, sizeof buf, "%u", v[0]);
    }
    return buf;
}

void write_stats_csv(std::FILE* out, const std::string& name, const std::vector<RegionStats>& stats,
                     PixelFormat format) {
    std::fprintf(out, "%s\n", kStatsHeader);
    for (std::size_t l = 0; l < stats.size(); ++l) {
        const RegionStats& s = stats[l];
        // Centroids with all their digits, so that a reader gets the same doubles back.
        std::fprintf(out, "%zu,%llu,%lld,%lld,%lld,%lld,%.17g,%.17g,%llu,%s\n", l,
                     static_cast<unsigned long long>(s.area), static_cast<long long>(s.x), static_cast<long long>(s.y),
                     static_cast<long long>(s.width), static_cast<long long>(s.height), s.cx, s.cy,
                     static_cast<unsigned long long>(s.perimeter), format_value(s.value, format).c_str());
    }
    if (std::fflush(out) != 0 || std::ferror(out)) throw Error(name + ": error while writing the statistics");
}

void write_stats_csv(std::FILE* out, const std::string& name, const std::vector<VolumeRegionStats>& stats,
                     PixelFormat format) {
    std::fprintf(out, "%s\n", kVolumeStatsHeader);
    for (std::size_t l = 0; l < stats.size(); ++l) {
        const VolumeRegionStats& s = stats[l];
        std::fprintf(out, "%zu,%llu,%lld,%lld,%lld,%lld,%lld,%lld,%.17g,%.17g,%.17g,%llu,%s\n", l,
                     static_cast<unsigned long long>(s.voxels), static_cast<long long>(s.x), static_cast<long long>(s.y),
                     static_cast<long long>(s.z), static_cast<long long>(s.width), static_cast<long long>(s.height),
                     static_cast<long long>(s.depth), s.cx, s.cy, s.cz, static_cast<unsigned long long>(s.surface),
                     format_value(s.value, format).c_str());
    }
    if (std::fflush(out) != 0 || std::ferror(out)) throw Error(name + ": error while writing the statistics");
}

namespace {

template <typename Row>
void write_stats_file(const std::string& path, const std::vector<Row>& stats, PixelFormat format) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "w"), &std::fclose);
    if (!f) throw Error(path + ": cannot write the statistics file");
    write_stats_csv(f.get(), path, stats, format);
}

}  // namespace

void write_stats_csv(const std::string& path, const std::vector<RegionStats>& stats, PixelFormat format) {
    write_stats_file(path, stats, format);
}

void write_stats_csv(const std::string& path, const std::vector<VolumeRegionStats>& stats, PixelFormat format) {
    write_stats_file(path, stats, format);
}

}  // namespace cclabel::cli
