#include "io/tiff_handle.hpp"

#include <cstdarg>
#include <cstdio>

#include "io/io_common.hpp"

namespace cclabel::io::detail {

int TiffHandle::on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
    auto* self = static_cast<TiffHandle*>(user);
    if (self->first_error_.empty()) {
        char buf[512];
        std::vsnprintf(buf, sizeof buf, fmt, ap);
        self->first_error_ = buf;
        (void)module;  // libtiff's module names are function names: noise for a user
    }
    return 1;
}

TiffHandle::TiffHandle(const std::string& path, const char* mode) : path_(path) {
    TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
    if (opts == nullptr) detail::fail(path, "libtiff could not start");
    TIFFOpenOptionsSetErrorHandlerExtR(opts, &TiffHandle::on_error, this);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, &TiffHandle::on_warning, this);
    // Bounds libtiff's own buffers (tag arrays, strip buffers) against hostile headers.
    TIFFOpenOptionsSetMaxSingleMemAlloc(opts, tmsize_t(1) << 30);
    tif_ = TIFFOpenExt(path.c_str(), mode, opts);
    TIFFOpenOptionsFree(opts);
    if (tif_ == nullptr) detail::fail(path, error("libtiff could not open the file"));
}

TiffHandle::~TiffHandle() {
    if (tif_ != nullptr) TIFFClose(tif_);
}

void TiffHandle::fail(const std::string& what) const { detail::fail(path_, what + ": " + error("libtiff error")); }

void TiffHandle::close() {
    if (tif_ == nullptr) return;
    TIFFFlush(tif_);
    TIFFClose(tif_);
    tif_ = nullptr;
    if (!first_error_.empty()) detail::fail(path_, first_error_);
}

}  // namespace cclabel::io::detail
