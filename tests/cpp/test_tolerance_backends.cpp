// Where a tolerance is labelled: typed pictures (I8 to F64, Options::tolerance_value) and
// volumes of every format go to the GPU with Backend::Cuda and may go there with Auto. Without a device (CI) the
// GPU path says why and Auto stays on the CPU; CCLABEL_RATES=cuda makes Auto choose the GPU, which
// shows the route is taken (an error without a device, the CPU's labels with one: the real
// kernels' labels are compared in tests/cuda).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/volume.hpp"

namespace cclabel::test {
namespace {

/// Sets CCLABEL_RATES for the life of the object.
struct ForcedRates {
    explicit ForcedRates(const char* v) { setenv("CCLABEL_RATES", v, 1); }
    ~ForcedRates() { unsetenv("CCLABEL_RATES"); }
};

/// A ramp of floats whose ends differ by 3.5 but whose steps are 0.5, then a far value: 2 regions
/// at tolerance 0.5.
const std::vector<float> kRamp = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 3.5f, 100.0f};

std::uint32_t label_ramp(Backend b, std::vector<std::uint32_t>& out, Backend* used = nullptr) {
    Options o;
    o.connectivity = 4;
    o.tolerance_value = 0.5;
    o.backend = b;
    out.assign(kRamp.size(), 0);
    const LabelResult r = label(ImageView{kRamp.data(), std::int64_t(kRamp.size()), 1, 0, PixelFormat::F32}, out.data(), o);
    if (used) *used = r.backend;
    return r.count;
}

TEST(ToleranceBackends, TypedPictureOnEachBackend) {
    std::vector<std::uint32_t> cpu, other;
    ASSERT_EQ(label_ramp(Backend::Cpu, cpu), 2u);
    EXPECT_EQ(cpu, (std::vector<std::uint32_t>{1, 1, 1, 1, 1, 1, 1, 1, 2}));
    if (!cuda_available()) {
        try {
            label_ramp(Backend::Cuda, other);
            ADD_FAILURE() << "backend cuda without a device labelled";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("backend cuda"), std::string::npos) << e.what();
        }
        Backend used = Backend::Cuda;
        EXPECT_EQ(label_ramp(Backend::Auto, other, &used), 2u);
        EXPECT_EQ(used, Backend::Cpu);
        EXPECT_EQ(other, cpu);
        const ForcedRates force("cuda");  // Auto picks the GPU: its path says there is none
        EXPECT_THROW(label_ramp(Backend::Auto, other), Error);
    } else {
        EXPECT_EQ(label_ramp(Backend::Cuda, other), 2u);
        EXPECT_EQ(other, cpu);
        const ForcedRates force("cuda");
        Backend used = Backend::Cpu;
        EXPECT_EQ(label_ramp(Backend::Auto, other, &used), 2u);
        EXPECT_EQ(used, Backend::Cuda);
        EXPECT_EQ(other, cpu);
    }
}

TEST(ToleranceBackends, VolumeOnEachBackend) {
    // 0, 2, 4, ... down a column of slices: one region at tolerance 2; a far voxel beside it.
    std::vector<std::uint8_t> v;
    for (int z = 0; z < 8; ++z) {
        v.push_back(std::uint8_t(2 * z));
        v.push_back(200);
    }
    const VolumeView view{v.data(), 2, 1, 8, 2, 2, PixelFormat::Gray8};
    Options o;
    o.connectivity = 6;
    o.tolerance = 2;
    o.backend = Backend::Cpu;
    std::vector<std::uint32_t> cpu(v.size()), other(v.size());
    ASSERT_EQ(label_volume(view, cpu.data(), o).count, 2u);
    o.backend = Backend::Cuda;
    if (!cuda_available()) {
        EXPECT_THROW(label_volume(view, other.data(), o), Error);
        o.backend = Backend::Auto;
        const LabelResult r = label_volume(view, other.data(), o);
        EXPECT_EQ(r.backend, Backend::Cpu);
        EXPECT_EQ(other, cpu);
        const ForcedRates force("cuda");
        EXPECT_THROW(label_volume(view, other.data(), o), Error);
    } else {
        EXPECT_EQ(label_volume(view, other.data(), o).count, 2u);
        EXPECT_EQ(other, cpu);
        const ForcedRates force("cuda");
        o.backend = Backend::Auto;
        const LabelResult r = label_volume(view, other.data(), o);
        EXPECT_EQ(r.backend, Backend::Cuda);
        EXPECT_EQ(other, cpu);
    }
}

TEST(ToleranceBackends, TypedVolumeOnEachBackend) {
    // Signed values -7, -5, ..., 7 down a column (steps of 2, ends 14 apart) beside a far voxel:
    // 2 regions at tolerance 2 on either backend; the regions' values read as values, not keys.
    std::vector<std::int16_t> v;
    for (int z = 0; z < 8; ++z) {
        v.push_back(std::int16_t(2 * z - 7));
        v.push_back(-30000);
    }
    const VolumeView view{v.data(), 2, 1, 8, 4, 4, PixelFormat::I16};
    Options o;
    o.connectivity = 6;
    o.tolerance = 2;  // an integer tolerance is a tolerance_value for a typed format
    o.backend = Backend::Cpu;
    std::vector<std::uint32_t> cpu(v.size()), other(v.size());
    ASSERT_EQ(label_volume(view, cpu.data(), o).count, 2u);
    for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(cpu[i], i % 2 ? 2u : 1u) << i;
    o.backend = Backend::Cuda;
    if (!cuda_available()) {
        try {
            label_volume(view, other.data(), o);
            ADD_FAILURE() << "backend cuda without a device labelled";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("backend cuda"), std::string::npos) << e.what();
        }
        o.backend = Backend::Auto;
        const LabelResult r = label_volume(view, other.data(), o);
        EXPECT_EQ(r.backend, Backend::Cpu);
        EXPECT_EQ(other, cpu);
        const ForcedRates force("cuda");  // Auto picks the GPU: its path says there is none
        EXPECT_THROW(label_volume(view, other.data(), o), Error);
    } else {
        EXPECT_EQ(label_volume(view, other.data(), o).count, 2u);
        EXPECT_EQ(other, cpu);
        const ForcedRates force("cuda");
        o.backend = Backend::Auto;
        const LabelResult r = label_volume(view, other.data(), o);
        EXPECT_EQ(r.backend, Backend::Cuda);
        EXPECT_EQ(other, cpu);
    }
}

}  // namespace
}  // namespace cclabel::test
