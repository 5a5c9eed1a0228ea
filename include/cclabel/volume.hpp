#pragma once
/// @file volume.hpp
/// @brief Connected-component labelling of 3-D volumes on the CPU or the GPU (6, 18 or 26 neighbours).
///
/// Two voxels are in one region when a path of neighbours joins them on which every voxel has
/// exactly the same value (all channels). Regions are numbered 1..N in raster order of each
/// region's first voxel (z, then y, then x), which is what cc3d's `connected_components` gives;
/// voxels of the background value (and zeros of Binary8) are 0. The labels never depend on
/// Options::threads.
#include <cstdint>

#include "cclabel/image_view.hpp"
#include "cclabel/label.hpp"
#include "cclabel/options.hpp"

namespace cclabel {

/// A volume the library reads: depth slices of height rows of width voxels. Voxel (x, y, z) starts
/// at `data + z * slice_stride + y * row_stride + x * bytes_per_pixel(format)` bytes. Sizes are
/// signed 64-bit so that negative values from callers are caught instead of wrapping.
struct VolumeView {
    const void* data = nullptr;
    std::int64_t width = 0;   ///< voxels along x
    std::int64_t height = 0;  ///< rows along y
    std::int64_t depth = 0;   ///< slices along z
    std::int64_t row_stride = 0;    ///< bytes from one row to the next; 0 means tightly packed
    std::int64_t slice_stride = 0;  ///< bytes from one slice to the next; 0 means height rows
    PixelFormat format = PixelFormat::Gray8;

    /// Voxels in the volume (width × height × depth), or 0 when a size is not positive.
    std::uint64_t voxels() const noexcept {
        if (width <= 0 || height <= 0 || depth <= 0) return 0;
        const std::uint64_t plane = std::uint64_t(width) * std::uint64_t(height);
        return plane * std::uint64_t(depth);  // callers validate before trusting this near 2^64
    }
    /// The row stride, with 0 resolved to the packed row size.
    std::int64_t row_bytes() const noexcept { return row_stride != 0 ? row_stride : width * bytes_per_pixel(format); }
    /// The slice stride, with 0 resolved to height rows.
    std::int64_t slice_bytes() const noexcept { return slice_stride != 0 ? slice_stride : height * row_bytes(); }
};

/// A tightly packed (or strided) view of @p data as a volume.
inline VolumeView make_volume_view(const void* data, std::int64_t width, std::int64_t height, std::int64_t depth,
                                   PixelFormat f, std::int64_t row_stride = 0, std::int64_t slice_stride = 0) {
    return VolumeView{data, width, height, depth, row_stride, slice_stride, f};
}

/// Labels @p volume into @p out, which must hold width × height × depth values (z, then y, then x;
/// tightly packed).
///
/// @param volume   the voxels: any host format label() takes, with its row and slice strides.
/// @param out      width × height × depth labels, 1..N in raster order of each region's first
///                 voxel (z, then y, then x), 0 for the background.
/// @param options  connectivity 6 (faces), 18 (faces and edges) or 26 (faces, edges and corners);
///                 4 and 8 are for pictures and give an Error here, as does any other value.
///                 background / background_value as for label(). threads: 0 means every core
///                 this process may use, at most one a 2^15 voxels. backend: Cpu labels on the
///                 CPU; Cuda on the GPU (the same labels; an Error without a device or CUDA build;
///                 cuda_volume.hpp labels volumes already on the GPU); Auto on whichever this
///                 machine's measured rates say is faster for the volume, as label() decides. tolerance as for
///                 label(): neighbours join when every channel differs by at most it (on the CPU:
///                 Auto and Cpu; Cuda gives an Error for now).
/// @return N (background excluded) and the backend that ran.
/// Throws cclabel::Error on bad input (sizes, strides that overlap, null pointers, more than
/// 2^32 - 1 voxels, an unknown format); never writes outside @p out.
LabelResult label_volume(const VolumeView& volume, std::uint32_t* out, const Options& options);

/// Checks every argument of label_volume and throws the Error it would throw. Reads no voxel.
void validate_volume(const VolumeView& volume, const std::uint32_t* out, const Options& options);

}  // namespace cclabel
