// GroupQueryAttention decode steps whose present comes back as the next past (the cache grows
// in place) must give the same outputs and caches as steps fed contiguous copies (the operator
// copies the past), on one kernel instance as a session keeps it.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ops/common/op_test_util.h"

namespace vt::ops {
namespace {

Tensor Random(const Shape& s, uint32_t seed) {
  Tensor t = Tensor::Empty(DType::kFloat32, s);
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = d(g);
  return t;
}

Tensor I32(const Shape& s, int32_t v) {
  Tensor t = Tensor::Empty(DType::kInt32, s);
  *t.mutable_data<int32_t>() = v;
  return t;
}

struct Decoder {
  Node node;
  Graph graph;
  std::unique_ptr<OpKernel> kernel;
  Decoder() {
    node.name = "t", node.op_type = "GroupQueryAttention", node.domain = "com.microsoft";
    node.opset = 1;
    node.inputs = {"q", "k", "v", "pk", "pv", "sl", "tot"};
    node.outputs = {"y", "present_key", "present_value"};
    node.attrs["num_heads"] = testing::AttrInt("num_heads", 4);
    node.attrs["kv_num_heads"] = testing::AttrInt("kv_num_heads", 2);
    const KernelFactory* f = KernelRegistry::Global().Find("com.microsoft",
                                                            "GroupQueryAttention", 1);
    KernelInit init{node, graph};
    auto made = (*f)(init);
    EXPECT_TRUE(made.ok());
    kernel = std::move(made.value());
  }
  // One step of one token; returns (y, present_key, present_value).
  std::vector<Value> Step(const Tensor& pk, const Tensor& pv, int step) {
    const int32_t total = static_cast<int32_t>(pk.dim(2)) + 1;
    std::vector<Value> in = {Random({1, 1, 32}, 10 + step), Random({1, 1, 16}, 20 + step),
                             Random({1, 1, 16}, 30 + step), pk, pv, I32({1}, total - 1),
                             I32({}, total)};
    std::vector<const Value*> ptrs;
    ptrs.reserve(in.size());
    for (const Value& v : in) ptrs.push_back(&v);
    std::vector<Value> out(3);
    KernelContext ctx(node, ptrs, &out, nullptr, 1);
    EXPECT_TRUE(kernel->Compute(ctx).ok());
    return out;
  }
};

TEST(GqaDecode, GrowingInPlaceEqualsCopyingThePast) {
  Decoder grow, copy;
  Tensor gk = Random({1, 2, 7, 8}, 1), gv = Random({1, 2, 7, 8}, 2);
  Tensor ck = gk.Clone(), cv = gv.Clone();
  for (int step = 0; step < 70; ++step) {  // crosses the first capacity (7 + 64 -> 128)
    std::vector<Value> a = grow.Step(gk, gv, step), b = copy.Step(ck, cv, step);
    for (int o = 0; o < 3; ++o)
      ASSERT_EQ(testing::Values(a[o].tensor()), testing::Values(b[o].tensor()))
          << "step " << step << " output " << o;
    if (step > 0) EXPECT_EQ(a[1].tensor().storage(), gk.storage()) << "step " << step;
    gk = a[1].tensor(), gv = a[2].tensor();
    ck = b[1].tensor().Clone(), cv = b[2].tensor().Clone();
  }
}

}  // namespace
}  // namespace vt::ops
