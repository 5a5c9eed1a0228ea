// Built with -DCONSUMER_CUDA=ON: the device API's header compiles in a consumer (it needs the CUDA
// runtime headers, which cclabel::cuda brings) and its functions link from the installed library.
#include <cclabel/cuda.hpp>

bool device_api_linked() {
    // Taking the address makes the linker resolve the symbol in libcclabel; nothing is launched,
    // so this runs on a machine without a GPU.
    auto* volatile fn = &cclabel::cuda::label_device;
    return fn != nullptr;
}
