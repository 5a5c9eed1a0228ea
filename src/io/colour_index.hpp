#pragma once
// Pictures whose pixels are wider than 32 bits (16-bit RGB, RGBA, ...) become U32 colour indices:
// equality of pixels is all that labelling needs, and an index keeps it exactly.
#include <cstdint>
#include <unordered_map>

#include "cclabel/error.hpp"

namespace cclabel::io::detail {

/// Numbers distinct 64-bit colour keys 0, 1, 2, ... in the order they are first seen.
class ColourIndex {
public:
    std::uint32_t operator()(std::uint64_t key) {
        // Neighbouring pixels usually repeat a colour: skip the hash map for runs.
        if (have_last_ && key == last_key_) return last_id_;
        // Only a picture of more than 2^32 pixels can hold this many colours (readers take 2^40).
        if (ids_.size() > 0xFFFFFFFFull && !ids_.contains(key))
            throw Error("more than 4294967296 distinct colours: too many to number as U32 pixels");
        const auto [it, inserted] = ids_.try_emplace(key, static_cast<std::uint32_t>(ids_.size()));
        have_last_ = true;
        last_key_ = key;
        last_id_ = it->second;
        return last_id_;
    }
    std::size_t size() const noexcept { return ids_.size(); }

private:
    std::unordered_map<std::uint64_t, std::uint32_t> ids_;
    bool have_last_ = false;
    std::uint64_t last_key_ = 0;
    std::uint32_t last_id_ = 0;
};

}  // namespace cclabel::io::detail
