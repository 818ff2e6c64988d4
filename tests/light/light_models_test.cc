// ONNX's light models (tests/data/light/README.md) run as ONNX's backend test runner runs them:
// the input is (arange(n) / n) in float32, reshaped to the graph input's shape with dims that
// have no value taken as 1, and the output must match ONNX's expected output within ONNX's
// tolerances (rtol 1e-3, densenet121 2e-3; atol 1e-7). Their weights are constant tensors, so
// the Softmax at the end only comes out uniform when every column of the last fully connected
// layer is summed the same way (kernels/gemm/f32_gemm_ukernel.h). Each model runs at every ISA
// level this CPU supports, and with two threads at the best one.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "tools/compare.h"
#include "tools/test_data.h"
#include "vtensor/runtime/session.h"
#include "vtensor/forms/weight_form.h"

namespace vt {
namespace {

struct LightModel {
  const char* name;
  double rtol;
};

const LightModel kModels[] = {
    {"bvlc_alexnet", 1e-3}, {"densenet121", 2e-3}, {"inception_v1", 1e-3},
    {"inception_v2", 1e-3}, {"resnet50", 1e-3},    {"shufflenet", 1e-3},
    {"squeezenet", 1e-3},   {"vgg19", 1e-3},       {"zfnet512", 1e-3},
};
constexpr double kAtol = 1e-7;

// ONNX's runner: np.arange(n) / n (float64) cast to float32; unknown dims are 1.
Expected<std::vector<Value>> RunnerInputs(const Session& s) {
  std::vector<Value> out;
  for (const GraphIO* io : s.inputs()) {
    const TypeInfo& t = io->spec.type();
    if (t.kind != TypeInfo::Kind::kTensor || t.elem != DType::kFloat32 || !t.shape)
      return InvalidArgument("input '" + io->name + "': ONNX's runner feeds float32 tensors only");
    Shape shape;
    for (const Dim& d : *t.shape) shape.push_back(d.known() ? d.value : 1);
    Tensor x = Tensor::Empty(DType::kFloat32, shape);
    const int64_t n = x.numel();
    float* p = x.mutable_data<float>();
    for (int64_t i = 0; i < n; ++i)
      p[i] = static_cast<float>(static_cast<double>(i) / static_cast<double>(n));
    out.emplace_back(std::move(x));
  }
  return out;
}

// gtest prints the parameter in test listings: the model's name, not its bytes.
void PrintTo(const LightModel& c, std::ostream* os) { *os << c.name; }

class LightModelTest : public ::testing::TestWithParam<LightModel> {};

TEST_P(LightModelTest, MatchesOnnxReference) {
  const LightModel& m = GetParam();
  const std::string dir = std::string(VT_LIGHT_MODELS_DIR) + "/" + m.name;
  for (IsaLevel isa : {IsaLevel::kAvx512, IsaLevel::kAvx2, IsaLevel::kBaseline}) {
    if (!IsaSupported(isa)) continue;
    for (int threads : {1, 2}) {
      if (threads > 1 && isa != HostIsa()) continue;  // threads split tiles the same way anywhere
      SessionOptions opts;
      opts.isa = isa;
      opts.threads = threads;
      const std::string what = std::string(m.name) + " at " + IsaArchitecture(isa) + ", " +
                               std::to_string(threads) + " thread(s)";
      auto s = Session::Load(dir + "/model.onnx", opts);
      ASSERT_TRUE(s.ok()) << what << ": " << s.status().message();
      auto in = RunnerInputs(**s);
      ASSERT_TRUE(in.ok()) << what << ": " << in.status().message();
      auto want = LoadExpectedOutputs(**s, dir);
      ASSERT_TRUE(want.ok()) << what << ": " << want.status().message();
      auto got = (*s)->Run(*in);
      ASSERT_TRUE(got.ok()) << what << ": " << got.status().message();
      ASSERT_EQ(got->size(), want->size()) << what;
      for (size_t i = 0; i < got->size(); ++i) {
        ASSERT_TRUE((*want)[i].has_value()) << what << ": no output_" << i << ".pb";
        const CompareResult r = CompareValues((*got)[i], *(*want)[i], m.rtol, kAtol);
        EXPECT_TRUE(r.pass) << what << ", output " << (*s)->outputs()[i].name << ": "
                            << r.detail << " (max |diff| " << r.max_abs_diff << ")";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OnnxLight, LightModelTest, ::testing::ValuesIn(kModels),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace vt
