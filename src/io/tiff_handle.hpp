#pragma once
// A libtiff handle whose errors land in the handle's own context (TIFFOpenOptions), not on stderr
// and not in process-wide handlers that other threads may also be using.
#include <tiffio.h>

#include <string>

namespace cclabel::io::detail {

class TiffHandle {
public:
    /// Opens @p path with libtiff mode @p mode; throws Error naming the file on failure.
    TiffHandle(const std::string& path, const char* mode);
    ~TiffHandle();
    TiffHandle(const TiffHandle&) = delete;
    TiffHandle& operator=(const TiffHandle&) = delete;

    TIFF* get() const noexcept { return tif_; }
    /// The first error libtiff reported, or @p fallback when it said nothing.
    std::string error(const char* fallback) const { return first_error_.empty() ? fallback : first_error_; }
    /// Throws Error("<path>: <what>: <libtiff's message>").
    [[noreturn]] void fail(const std::string& what) const;
    /// Closes now (a writer must flush before reporting success); throws on failure.
    void close();

private:
    static int on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap);
    static int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

    std::string path_;
    std::string first_error_;
    TIFF* tif_ = nullptr;
};

}  // namespace cclabel::io::detail
