#pragma once
/// @file adjacency.hpp
/// @brief The region adjacency graph of a label image or a label volume: which labels touch, and how much.
#include <cstdint>
#include <vector>

#include "cclabel/options.hpp"
#include "cclabel/volume.hpp"

namespace cclabel {

/// Two labels that touch, and how many neighbour pairs of pixels join them.
struct AdjacencyEdge {
    std::uint32_t a = 0;  ///< the smaller label (0 only with include_background)
    std::uint32_t b = 0;  ///< the larger label
    /// Unordered pairs of neighbouring pixels (under the connectivity) with one pixel labelled a and
    /// the other b: each touching pair counted once, corner pairs too with 8-connectivity (and the
    /// edge and corner pairs of voxels with 18 and 26). This is cc3d's
    /// `contacts(..., surface_area=False)` with connectivity 4, or 26 on a 2-D image, and with the
    /// same connectivity on a volume.
    std::uint64_t contacts = 0;
};

/// The edges of the region adjacency graph of @p labels (width × height values, row y at
/// labels + y × stride; stride 0 means width), sorted by (a, b), a < b. Label 0 is the background:
/// its pairs are left out unless @p include_background. @p connectivity is 4 or 8; anything else,
/// a negative size or stride, a stride below the width or a null pointer for a non-empty image is
/// an Error. @p labels may be in host or device memory. @p backend: Cpu (bands of rows on
/// @p threads threads, each with a table of its boundary pairs), Cuda (the boundary pairs sorted
/// and summed on the GPU; host labels are copied up first) or Auto: labels in device memory stay on
/// the GPU, labels in host memory go to the backend this machine's rates say is faster (as label()
/// decides). Both give the same edges, whatever @p threads (0: every core this process may use, at
/// most one a 2^16 pixels; negative is an Error).
std::vector<AdjacencyEdge> adjacency(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                     int connectivity = 8, bool include_background = false, std::int64_t stride = 0,
                                     Backend backend = Backend::Auto, int threads = 0);

/// The edges of the region adjacency graph of a label volume: @p labels is a VolumeView of format
/// U32 (width × height × depth labels, voxel (x, y, z) at data + z × slice_stride + y × row_stride
/// bytes + 4x; strides of 0 mean packed, and must otherwise be multiples of 4 bytes), sorted by
/// (a, b), a < b, contacts counted over voxel pairs that are neighbours under @p connectivity: 6
/// (faces), 18 (faces and edges) or 26 (faces, edges and corners); 4 and 8 are for pictures and an
/// Error here, as are another format, negative sizes or strides, slices or rows that overlap, and a
/// null pointer for a non-empty volume. Label 0 is the background, left out unless
/// @p include_background. @p labels may be in host or device memory. @p backend: Cpu (bands of
/// rows across the volume on @p threads threads; 0: every core, at most one a 2^16 voxels; device
/// labels are an Error), Cuda (tiles of each slice on the GPU, their boundary pairs sorted and
/// summed there; host labels are copied up first, on @p threads threads; sides of 2^31 voxels or
/// more are an Error) or Auto: labels in device memory stay on the GPU, labels in host memory go
/// to the backend this machine's rates say is faster (as for a picture of as many pixels). Both
/// give the same edges, whatever @p threads.
std::vector<AdjacencyEdge> adjacency(const VolumeView& labels, int connectivity = 26, bool include_background = false,
                                     Backend backend = Backend::Auto, int threads = 0);

}  // namespace cclabel
