#pragma once
// The rule both buffer caches follow (core/host_output_cache.hpp for the host label arrays of the
// Python package, cuda/device_cache.hpp for the device memory of host-memory GPU calls): a freed
// buffer is kept for the next request it fits without wasting more than a quarter of itself, up to
// a byte limit and an entry cap, and the oldest leave first. A pipeline labels picture after picture
// of one size, so the last call's buffers are the next call's; a cache that kept every size it ever
// saw would hold memory no call wants.
//
// Not thread-safe: each cache holds its own lock around these calls. Buffers carry a key (the
// device a device buffer lives on; 0 on the host) and only fit requests of the same key.
#include <cstddef>
#include <deque>

namespace cclabel::detail {

class FreedBuffers {
public:
    /// Buffers kept at most (the oldest leave first), so that the search for a fit stays short.
    static constexpr std::size_t kMaxEntries = 64;

    struct Entry {
        void* p = nullptr;
        std::size_t bytes = 0;
        int key = 0;
    };

    /// Takes out the smallest kept buffer of @p key that holds @p want bytes with at most a quarter
    /// of @p want to spare; false when none does.
    bool take(std::size_t want, int key, Entry& out) {
        auto best = freed_.end();
        for (auto it = freed_.begin(); it != freed_.end(); ++it)
            if (it->key == key && it->bytes >= want && it->bytes - want <= want / 4 &&
                (best == freed_.end() || it->bytes < best->bytes))
                best = it;
        if (best == freed_.end()) return false;
        out = *best;
        bytes_ -= best->bytes;
        freed_.erase(best);
        return true;
    }

    /// Keeps @p e, first dropping (through @p drop(entry)) the oldest buffers until everything kept
    /// fits in @p limit bytes and the entries under kMaxEntries; @p e itself is dropped when it alone
    /// exceeds @p limit.
    template <class Drop>
    void put(const Entry& e, std::size_t limit, Drop&& drop) noexcept {
        if (e.bytes > limit) {
            drop(e);
            return;
        }
        trim(limit - e.bytes, drop);
        while (freed_.size() >= kMaxEntries) pop_oldest(drop);
        try {
            freed_.push_back(e);
            bytes_ += e.bytes;
        } catch (...) {  // no room for the entry: give the buffer back instead
            drop(e);
        }
    }

    /// Drops the oldest buffers until at most @p limit bytes are kept.
    template <class Drop>
    void trim(std::size_t limit, Drop&& drop) noexcept {
        while (bytes_ > limit && !freed_.empty()) pop_oldest(drop);
    }

    /// Bytes kept, in all or of @p key.
    std::size_t bytes() const noexcept { return bytes_; }
    std::size_t bytes(int key) const noexcept {
        std::size_t n = 0;
        for (const Entry& e : freed_) n += e.key == key ? e.bytes : 0;
        return n;
    }
    std::size_t entries() const noexcept { return freed_.size(); }

private:
    template <class Drop>
    void pop_oldest(Drop& drop) noexcept {
        const Entry e = freed_.front();
        freed_.pop_front();
        bytes_ -= e.bytes;
        drop(e);
    }

    std::deque<Entry> freed_;  ///< oldest first
    std::size_t bytes_ = 0;
};

}  // namespace cclabel::detail
