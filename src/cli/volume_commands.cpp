// `cclabel label --volume` and `cclabel stats --volume`: each input is one volume (every page of a
// TIFF a slice, or a (Z, Y, X) .npy), labelled whole in memory by Labeller::run_volume, or for
// `label` a slab of pages at a time (--slab, or past --memory-budget: cli/volume_slabs.hpp); the labels
// go to a .npy of shape (Z, Y, X) or a TIFF of one page a slice, the statistics to the CSV of
// kVolumeStatsHeader, the region graph to the pictures' CSV (--adjacency), the preview to one PNG of
// the slices side by side (cli/volume_preview.hpp).
#include <iostream>
#include <sstream>

#include "cclabel/adjacency.hpp"
#include "cclabel/io.hpp"
#include "cclabel/volume_stats.hpp"
#include "cli/adjacency_csv.hpp"
#include "cli/commands.hpp"
#include "cli/labelling.hpp"
#include "cli/output_names.hpp"
#include "cli/stats_csv.hpp"
#include "cli/volume_preview.hpp"
#include "cli/volume_slabs.hpp"

namespace cclabel::cli {
namespace {

std::string report(const std::string& input, const io::Volume& v, const LabelledVolume& r, bool verified) {
    std::ostringstream line;
    line << input << ": " << v.width << "x" << v.height << "x" << v.depth << " " << format_name(v.format)
         << " volume (" << v.description << "), " << r.options.connectivity << "-connected, ";
    if (!r.segmented.empty()) line << r.segmented << ", ";
    if (r.options.tolerance > 0) line << "tolerance " << r.options.tolerance << ", ";
    line << with_commas(r.count) << " regions, ";
    line.setf(std::ios::fixed);
    line.precision(1);
    line << r.ms << " ms (" << backend_name(r.backend) << ")";
    if (verified) line << ", verified";
    return line.str();
}

/// The statistics of the labels made, of what was labelled (the mask or cluster volume when
/// segmented, so the value is 1 or the cluster index, as for pictures): with --tolerance too, since
/// they read the labels given (regions_volume refuses a tolerance, which would mean labelling).
std::vector<VolumeRegionStats> stats_of(const LabelledVolume& r) {
    Options o = r.options;
    o.tolerance = 0;
    return regions_volume(r.labelled, r.labels.data(), o);
}

/// The volume's region graph on the labelling's --backend (auto: this machine's rates decide, as
/// for pictures); the edges are the same on either.
std::vector<AdjacencyEdge> graph_of(const io::Volume& v, const LabelledVolume& r, bool background) {
    return adjacency(make_volume_view(r.labels.data(), v.width, v.height, v.depth, PixelFormat::U32),
                     r.options.connectivity, background, r.options.backend, r.options.threads);
}

}  // namespace

int run_label_volumes(const std::vector<std::string>& inputs, const Labeller& labeller, const LabelOptions& options,
                      const VolumeOutputs& out) {
    const bool many = inputs.size() > 1;
    const std::string ext = out.format == "tiff" ? "tif" : "npy";
    int failed = 0;
    bool bad_option = false;
    for (const std::string& input : inputs) {
        try {
            std::string why;
            if (const std::int64_t pages = slab_pages(input, options.slab, options.stream, out.budget, labeller, why); pages > 0) {
                for (const auto& [given, name] : {std::pair{&out.stats, "--stats"}, {&out.preview, "--preview"},
                                                  {&out.adjacency, "--adjacency"}})
                    if (!given->empty())
                        throw Error(std::string(name) + " needs the whole volume in memory, but this volume is read in slabs (" +
                                    why + ")");
                std::cout << label_volume_in_slabs(input, output_name(out.output, input, many, ext, 0, 1), labeller, pages, why)
                          << std::endl;
                continue;
            }
            const io::Volume v = io::read_volume(input);
            const LabelledVolume r = labeller.run_volume(v.view());
            if (const std::string st = output_name(out.stats, input, many, "csv", 0, 1); !st.empty())
                write_stats_csv(st, stats_of(r), r.labelled.format);
            if (const std::string adj = output_name(out.adjacency, input, many, "csv", 0, 1); !adj.empty())
                write_adjacency_csv(adj, graph_of(v, r, out.adjacency_background));
            if (const std::string pv = output_name(out.preview, input, many, "png", 0, 1); !pv.empty())
                write_volume_preview(pv, r.labels.data(), v.width, v.height, v.depth);
            if (const std::string o = output_name(out.output, input, many, ext, 0, 1); !o.empty())
                io::write_volume_labels(o, r.labels.data(), v.width, v.height, v.depth);
            std::cout << report(input, v, r, options.verify) << std::endl;
        } catch (const std::exception& e) {
            ++failed;
            if (dynamic_cast<const BadOption*>(&e) != nullptr) bad_option = true;
            print_error(input, e);
        }
    }
    if (many && failed) std::cerr << "cclabel: " << failed << " of " << inputs.size() << " files failed\n";
    return bad_option ? 2 : failed ? 1 : 0;
}

int run_stats_volume(const std::string& input, const std::string& csv, const Labeller& labeller) {
    try {
        const io::Volume v = io::read_volume(input);
        const LabelledVolume r = labeller.run_volume(v.view());
        const auto st = stats_of(r);
        if (csv.empty()) {
            write_stats_csv(stdout, "standard output", st, r.labelled.format);
        } else {
            write_stats_csv(csv, st, r.labelled.format);
            std::cout << input << ": " << with_commas(r.count) << " regions -> " << csv << std::endl;
        }
        return 0;
    } catch (const std::exception& e) {
        print_error(input, e);
        return dynamic_cast<const BadOption*>(&e) != nullptr ? 2 : 1;
    }
}

}  // namespace cclabel::cli
