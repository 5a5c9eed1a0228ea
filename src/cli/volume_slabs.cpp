// A volume read a slab of pages at a time, labelled exactly as the whole (issue 27; the Python twin is
// cclabel.label_slabs, python/cclabel/_slabs.py).
//
// Pass 1: each slab (pages z0..z1) is labelled in memory by label_volume, its local labels 1..n
// (raster order of the slab) appended to a temporary file; only the slab's last slice (voxels and
// labels) is kept, to pair with the next slab's first slice (core/slab_seam.hpp), keys equal or,
// with --tolerance, close as the labeller joins them. The tile API's resolve_tiles numbers the
// regions: a union-find over (slab, local label), each label's "first index" its ordinal over the
// slabs, which sorts as its first voxel's raster index does (slabs follow in z, local labels are in raster order of their slab), so the
// ranks are the whole volume's numbers. Pass 2 reads the local labels back a slice at a time and
// writes them through their slab's map (relabel_tile) to the label file, row by row.
//
// Memory: one slab of voxels and of uint32 labels, two slices, and 16 bytes a local label (ordinals
// and maps); the temporary file holds 4 bytes a voxel until the labels are written.
#include "cli/volume_slabs.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <sstream>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"
#include "cclabel/io.hpp"
#include "cclabel/tiles.hpp"
#include "cli/commands.hpp"
#include "cli/labelling.hpp"
#include "cli/memory_budget.hpp"
#include "core/slab_seam.hpp"
#include "cuda/kernels/close_keys.cuh"
#include "io/npy_format.hpp"
#include "io/tiff_stream.hpp"

namespace cclabel::cli {
namespace {

bool is_npy_file(const std::string& path) {
    char head[6] = {};
    std::ifstream f(path, std::ios::binary);
    return f.read(head, 6) && std::memcmp(head, io::detail::kNpyMagic, 6) == 0;
}

/// Pairs (label before the seam, label after it) of the regions that cross from slice @p lo (the
/// last of a slab) into slice @p hi (the first of the next): keys equal, or close as the labeller
/// joins them with a tolerance.
template <PixelFormat F>
std::vector<std::uint32_t> seam_pairs(const std::uint8_t* lo, const std::uint32_t* lo_labels, const std::uint8_t* hi,
                                      const std::uint32_t* hi_labels, std::int64_t w, std::int64_t h, int connectivity,
                                      std::uint32_t tolerance) {
    using T = detail::PixelTraits<F>;
    return detail::slab_seam_pairs(lo_labels, hi_labels, w, h, connectivity, [&](std::int64_t j, std::int64_t i) {
        const std::uint32_t ka = T::key(lo + j * T::kBytes), kb = T::key(hi + i * T::kBytes);
        return ka == kb || (tolerance != 0 && cuda::detail::keys_close<F>(ka, kb, tolerance));
    });
}

/// The temporary file of local labels, removed however the labelling ends.
struct TempLabels {
    std::string path;
    std::FILE* f = nullptr;

    explicit TempLabels(std::string p) : path(std::move(p)) {
        f = std::fopen(path.c_str(), "w+b");
        if (!f) throw Error(path + ": cannot create the temporary label file: " + std::strerror(errno));
    }
    ~TempLabels() {
        std::fclose(f);
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
    }
    TempLabels(const TempLabels&) = delete;
    TempLabels& operator=(const TempLabels&) = delete;

    void put(const std::uint32_t* p, std::size_t n) {
        if (n != 0 && std::fwrite(p, sizeof *p, n, f) != n) throw Error(path + ": write failed: " + std::strerror(errno));
    }
    void get(std::uint32_t* p, std::size_t n) {
        if (n != 0 && std::fread(p, sizeof *p, n, f) != n) throw Error(path + ": read failed (truncated?)");
    }
};

/// Pages z0..z1 of @p reader, packed one after another into @p voxels; each must be the first's
/// size and format (as read_volume requires).
void read_pages(io::PageReader& reader, const std::string& input, std::int64_t z0, std::int64_t z1,
                const ImageView& first, std::vector<std::uint8_t>& voxels) {
    const std::size_t row = std::size_t(first.width * bytes_per_pixel(first.format));
    voxels.resize(row * std::size_t(first.height) * std::size_t(z1 - z0));
    std::uint8_t* dst = voxels.data();
    for (std::int64_t z = z0; z < z1; ++z) {
        const io::Page page = reader.read(int(z));
        const ImageView s = page.view();
        auto what = [](const ImageView& v) {
            return std::to_string(v.width) + "x" + std::to_string(v.height) + " " + std::string(format_name(v.format));
        };
        if (s.width != first.width || s.height != first.height || s.format != first.format)
            throw Error(input + ": page " + std::to_string(z + 1) + " is " + what(s) + ", page 1 " + what(first) +
                        ": the pages of a volume must share size and format");
        const auto* p = static_cast<const std::uint8_t*>(s.data);
        for (std::int64_t y = 0; y < s.height; ++y, dst += row) std::memcpy(dst, p + y * s.row_bytes(), row);
    }
}

}  // namespace

std::int64_t slab_pages(const std::string& input, std::int64_t slab_option, bool stream, std::uint64_t budget,
                        const Labeller& labeller, std::string& why) {
    if (slab_option > 0) {
        if (is_npy_file(input))
            throw BadOption("--slab reads the pages of a TIFF (or another paged file) a slab at a time; " + input +
                            " is a .npy volume, read whole (cclabel.label_slabs over np.load(..., mmap_mode='r') "
                            "labels one larger than memory)");
        why = "--slab " + std::to_string(slab_option);
        return slab_option;
    }
    if (!io::is_tiff_file(input)) {
        if (stream)
            throw BadOption("--stream reads the pages of a TIFF a slab at a time; " + input + " is read whole" +
                            (is_npy_file(input) ? " (cclabel.label_slabs over np.load(..., mmap_mode='r') labels a .npy "
                                                  "volume larger than memory)"
                                                : ""));
        return 0;
    }
    const io::TiffRowReader head(input, 0);  // the first page's size and format, nothing decoded
    const std::int64_t pages = io::PageReader(input).pages();
    const std::uint64_t page_px = std::uint64_t(head.width()) * std::uint64_t(head.height());
    const std::uint64_t voxels = page_px * std::uint64_t(pages);
    const std::uint64_t per_voxel = std::uint64_t(bytes_per_pixel(head.format())) + 4;
    const std::uint64_t need = voxels * per_voxel;
    // One call labels at most untiled_limit() voxels (2^32 - 1, lowered by tests) into uint32 labels:
    // a volume past it can only be labelled in slabs, of at most that many voxels each.
    const std::uint64_t limit = labeller.untiled_limit();
    if ((!stream && need <= budget && voxels <= limit) || page_px == 0) return 0;
    why = need > budget    ? "it needs about " + format_size(need) + " in memory, over --memory-budget " + format_size(budget)
          : voxels > limit ? "more than " + with_commas(limit) + " voxels, past what one labelling numbers"
                           : std::string("--stream");
    const std::uint64_t fit = budget / 2 / (page_px * per_voxel);
    return std::int64_t(std::clamp<std::uint64_t>(std::min(fit, limit / page_px), 1, std::uint64_t(pages)));
}

std::string label_volume_in_slabs(const std::string& input, const std::string& output, const Labeller& labeller,
                                  std::int64_t pages, const std::string& why) {
    io::PageReader reader(input);
    const std::int64_t depth = reader.pages();
    io::Page first_page = reader.read(0);
    const ImageView first = first_page.view();
    const std::int64_t w = first.width, h = first.height;
    const PixelFormat format = first.format;
    const std::string description = first_page.image.description + (depth > 1 ? ", " + std::to_string(depth) + " pages" : "");
    const Options o = labeller.slab_options(first, why);
    first_page = io::Page{};  // read again with its slab; only its size and format are kept
    const std::uint64_t plane = std::uint64_t(w) * std::uint64_t(h);
    if (plane * std::uint64_t(pages) > kMaxPixels)
        throw Error("--slab " + std::to_string(pages) + ": a slab of " + std::to_string(pages) + " pages of " +
                    std::to_string(w) + "x" + std::to_string(h) + " has more than 2^32 - 1 voxels; take fewer pages");
    const std::uint64_t voxels = plane * std::uint64_t(depth);
    const int label_bytes = voxels > labeller.untiled_limit() ? 8 : 4;
    const int bpp = bytes_per_pixel(format);

    const auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<TempLabels> temp;
    if (!output.empty()) temp = std::make_unique<TempLabels>(output + ".slabs.tmp");
    std::vector<std::uint8_t> voxels_buf, last_voxels;
    std::vector<std::uint32_t> labels, last_labels;
    std::vector<std::vector<std::uint64_t>> ordinals;  // resolve_tiles' first_index of each slab
    std::vector<Seam> seams;
    std::vector<std::int64_t> slab_start;
    std::uint64_t labelled = 0;
    Backend backend = Backend::Cpu;
    for (std::int64_t z0 = 0; z0 < depth; z0 += pages) {
        const std::int64_t z1 = std::min(depth, z0 + pages), d = z1 - z0;
        read_pages(reader, input, z0, z1, first, voxels_buf);
        labels.resize(std::size_t(plane * std::uint64_t(d)));
        std::uint32_t none = 0;  // a valid pointer for empty slices
        const VolumeView slab = make_volume_view(voxels_buf.data(), w, h, d, format);
        const LabelResult r = label_volume(slab, labels.empty() ? &none : labels.data(), o);
        backend = r.backend;
        std::vector<std::uint64_t> ord(r.count);
        std::iota(ord.begin(), ord.end(), labelled);
        labelled += r.count;
        ordinals.push_back(std::move(ord));
        slab_start.push_back(z0);
        const std::size_t s = ordinals.size() - 1;
        if (s > 0 && plane > 0) {
            auto pairs = detail::dispatch_format(format, [&]<PixelFormat F>() {
                return seam_pairs<F>(last_voxels.data(), last_labels.data(), voxels_buf.data(), labels.data(), w, h,
                                     o.connectivity, o.tolerance);
            });
            if (!pairs.empty()) seams.push_back(Seam{s - 1, s, std::move(pairs)});
        }
        const std::size_t last = std::size_t(plane * std::uint64_t(d - 1));
        last_voxels.assign(voxels_buf.begin() + std::ptrdiff_t(last * std::size_t(bpp)), voxels_buf.end());
        last_labels.assign(labels.begin() + std::ptrdiff_t(last), labels.end());
        if (temp) temp->put(labels.data(), labels.size());
    }
    std::vector<std::uint8_t>().swap(voxels_buf);
    std::vector<std::uint32_t>().swap(labels);
    Resolution res = resolve_tiles(ordinals, seams, o.threads);
    std::vector<std::vector<std::uint64_t>>().swap(ordinals);

    if (temp) {
        std::rewind(temp->f);
        io::LabelRowWriter writer(output, w, h, label_bytes, depth);
        std::vector<std::uint32_t> local(plane);
        std::vector<std::uint64_t> wide(label_bytes == 8 ? plane : 0);
        for (std::size_t s = 0; s < res.maps.size(); ++s) {
            const std::int64_t z1 = s + 1 < slab_start.size() ? slab_start[s + 1] : depth;
            for (std::int64_t z = slab_start[s]; z < z1; ++z) {
                temp->get(local.data(), local.size());
                if (label_bytes == 8) {
                    relabel_tile(local.data(), w, h, res.maps[s], wide.data(), w);
                    writer.write(wide.data(), h);
                } else {
                    relabel_tile(local.data(), w, h, res.maps[s], local.data(), w);
                    writer.write(local.data(), h);
                }
            }
        }
        writer.close();
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    std::ostringstream line;
    line << input << ": " << w << "x" << h << "x" << depth << " " << format_name(format) << " volume (" << description
         << "), " << o.connectivity << "-connected, ";
    if (o.tolerance > 0) line << "tolerance " << o.tolerance << ", ";
    line << with_commas(res.count) << " regions, ";
    line.setf(std::ios::fixed);
    line.precision(1);
    line << ms << " ms (" << backend_name(backend) << "), in slabs of " << pages << (pages == 1 ? " page" : " pages")
         << " (" << why << "), uint" << 8 * label_bytes << " labels";
    return line.str();
}

}  // namespace cclabel::cli
