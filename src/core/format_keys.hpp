#pragma once
// The typed formats (I8 to F64) labelled by the existing labellers: each picture becomes a picture
// of equality keys of at most 32 bits, in a format the labellers take (Gray8, Gray16 or U32), with
// no labeller instantiated for the typed formats themselves. Labelling compares keys for equality
// only, so the labels are those of the typed values whatever the mapping, as long as it is
// one-to-one on the values present:
//   I8, I16, I32   the same bytes re-typed as Gray8, Gray16, U32 (equal bits are equal values);
//   F16, F32       canonical bits (-0 -> +0, every NaN -> one NaN): re-typed as Gray16/U32 when a
//                  scan finds no -0 and no NaN, else a canonical copy;
//   I64, U64, F64  (F64 canonical) dense 32-bit keys in a copy: value - min when every value lies
//                  in a window of 2^32, else the value's rank among the distinct values (sorted).
// The background goes through the same map (a value absent from the picture means no background).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"
#include "cclabel/stats.hpp"
#include "core/batch_request.hpp"
#include "core/request.hpp"

namespace cclabel::detail {

/// How the values of one call's pictures become keys, and back.
struct KeyMap {
    enum class Kind {
        Bits,       ///< the value's bits are the key (signed formats; floats without -0 or NaN)
        Canonical,  ///< the canonical float bits are the key, in a copy
        Offset,     ///< 64-bit: key = order(value) - low, in a copy
        Table,      ///< 64-bit: key = rank of order(value) in `table`, in a copy
    };
    PixelFormat from = PixelFormat::Gray8;  ///< the typed format
    PixelFormat to = PixelFormat::Gray8;    ///< Gray8, Gray16 or U32: what the labellers read
    Kind kind = Kind::Bits;
    std::uint64_t low = 0;               ///< Offset
    std::vector<std::uint64_t> table;    ///< Table: the distinct order values, ascending

    bool copies() const noexcept { return kind != Kind::Bits; }
    /// The key of a value given as its bits (floats canonical), or nullopt when no pixel of the
    /// mapped pictures can have it.
    std::optional<std::uint32_t> key(std::uint64_t bits) const;
    /// The bits of the value whose key is @p key (floats canonical).
    std::uint64_t value(std::uint32_t key) const;
};

/// The map for @p images, all of the typed format @p f and valid for label() (stride resolved);
/// one map for all, so that a batch shares one background key. Reads every pixel once for
/// F16/F32/I64/U64/F64 (on up to @p threads threads), none for I8/I16/I32. Throws Error if the
/// pictures hold more than 2^32 distinct values.
KeyMap plan_keys(PixelFormat f, std::span<const ImageView> images, int threads);

/// Writes the keys of @p image (map.from) to @p out as packed rows of map.to pixels.
void write_keys(const KeyMap& map, const ImageView& image, std::uint8_t* out, int threads);

/// @p options for the key pictures: the background (@p r's, already validated) as a key of
/// map.to, or none when it is absent from the pictures.
Options keyed_options(const KeyMap& map, const Request& r, const Options& options);

/// One typed picture as the labellers take it.
struct KeyedImage {
    ImageView view;                        ///< of map.to; the picture itself or `copy`
    Options options;                       ///< keyed_options
    KeyMap map;
    std::unique_ptr<std::uint8_t[]> copy;  ///< the keys, when map.copies()
};

/// @p image (typed, validated into @p r) as a picture of keys.
KeyedImage keyed_image(const ImageView& image, const Options& options, const Request& r);

/// A batch of a typed format as a batch of keys (one map for every image).
struct KeyedBatch {
    BatchRequest request;
    KeyMap map;
    std::unique_ptr<std::uint8_t[]> copy;
};
KeyedBatch keyed_batch(const BatchRequest& r);

/// regions() rows of a key picture made to report the typed values: value[0] the low 32 bits of
/// the value's bits in the image's own type, value[1] the high 32 (8-byte formats), floats in
/// their canonical form.
void restore_values(const KeyMap& map, std::vector<RegionStats>& rows);

}  // namespace cclabel::detail
