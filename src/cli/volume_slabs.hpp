#pragma once
// `label --volume` of a volume larger than memory: its pages read a slab at a time (--slab N, or by
// itself when the voxels and labels would pass --memory-budget), with the labels of the volume
// labelled whole, value for value (src/cli/volume_slabs.cpp).
#include <cstdint>
#include <string>

namespace cclabel::cli {

class Labeller;

/// How the pages of @p input are read for `label --volume`: 0 whole (read_volume), else this many
/// pages a slab. @p slab_option (--slab, 0: not given) wins; otherwise a TIFF whose voxels and
/// labels would pass @p budget, or with more voxels than one labelling numbers
/// (Labeller::untiled_limit()), or any TIFF with @p stream (--stream), is read in slabs of as many
/// pages as fit half the budget and that limit. @p why gets the reason for the report. Throws
/// BadOption for --slab with a .npy volume (read whole, not by pages) and for --stream with a file
/// that is not a TIFF.
std::int64_t slab_pages(const std::string& input, std::int64_t slab_option, bool stream, std::uint64_t budget,
                        const Labeller& labeller, std::string& why);

/// Labels @p input a slab of @p pages pages at a time and writes the labels to @p output (.npy or
/// .tif/.tiff by its extension, uint32, or uint64 past Labeller::untiled_limit() voxels; "" writes
/// none) through a temporary file of the slabs' local labels beside it. Returns the report line;
/// throws Error for anything wrong, or an option that needs the whole volume (@p why says why it is
/// read in slabs).
std::string label_volume_in_slabs(const std::string& input, const std::string& output, const Labeller& labeller,
                                  std::int64_t pages, const std::string& why);

}  // namespace cclabel::cli
