// Test-only helpers for the NN operator tests (Conv, ConvTranspose, MatMul, Gemm, pooling):
// run one kernel with each input fed at run time, stored as an initializer, or produced by a
// Constant node (the latter two exercise prepacking), and compare with double references.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ops/common/op_test_util.h"
#include "vtensor/exec/kernel.h"
#include "vtensor/forms/weight_provider.h"

namespace vt::ops::nntest {

using testing::AttrFloat;
using testing::AttrInt;
using testing::AttrInts;
using testing::AttrString;

enum class Source { kFeed, kInitializer, kConstantNode };

struct NnCall {
  std::string op;
  std::string domain;  // "" = the default ONNX domain
  int opset = 17;
  std::vector<Attribute> attrs;
  std::vector<Tensor> inputs;  // undefined tensor = absent optional input
  std::vector<Source> sources;  // per input, default kFeed
  size_t num_outputs = 1;
  int threads = 1;
  // Fed inputs get their static type in Graph::values, as the session's gemm-shapes pass
  // records it for GEMM operands (the rows of a GEMM decide its weight's form).
  bool static_feeds = false;
  // Prepares the constant weights (null: WeightProvider::Default(), which records nothing).
  WeightProvider* provider = nullptr;

  Expected<std::vector<Value>> Run() const {
    Graph g;
    Node node;
    node.name = "t";
    node.op_type = op;
    node.domain = domain;
    node.opset = opset;
    std::vector<Value> values(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].defined()) {
        node.inputs.push_back("");
        continue;
      }
      const std::string name = "in" + std::to_string(i);
      node.inputs.push_back(name);
      const Source s = i < sources.size() ? sources[i] : Source::kFeed;
      if (s == Source::kInitializer) {
        g.initializers[name] = inputs[i];
        values[i] = Value(g.initializers[name]);
      } else if (s == Source::kConstantNode) {
        Node c;
        c.name = "const_" + name;
        c.op_type = "Constant";
        c.opset = opset;
        c.outputs = {name};
        c.attrs["value"] = testing::AttrTensor("value", inputs[i]);
        g.nodes.push_back(c);
        values[i] = Value(g.nodes.back().attrs["value"].t);
      } else {
        g.inputs.push_back(GraphIO{name, TensorSpec()});
        values[i] = Value(inputs[i]);
        if (static_feeds) {
          SymShape dims;
          for (int64_t d : inputs[i].shape()) dims.push_back(Dim{d, ""});
          g.values[name] = TensorSpec(TypeInfo::Tensor(inputs[i].dtype(), dims));
        }
      }
    }
    for (size_t i = 0; i < num_outputs; ++i) node.outputs.push_back("out" + std::to_string(i));
    for (const auto& a : attrs) node.attrs[a.name] = a;
    const KernelFactory* f = KernelRegistry::Global().Find(domain, op, opset);
    if (f == nullptr) return NotFound("no kernel for " + op);
    KernelInit init{node, g, provider};
    VT_ASSIGN_OR_RETURN(auto kernel, (*f)(init));
    std::vector<const Value*> ins;
    for (size_t i = 0; i < inputs.size(); ++i)
      ins.push_back(inputs[i].defined() ? &values[i] : nullptr);
    std::vector<Value> outs(num_outputs);
    // Run twice: a kernel must not depend on state left by a previous call.
    for (int rep = 0; rep < 2; ++rep) {
      outs.assign(num_outputs, Value());
      KernelContext ctx(node, ins, &outs, nullptr, threads);
      VT_RETURN_IF_ERROR(kernel->Compute(ctx));
    }
    return outs;
  }
};

inline std::vector<double> Random(size_t n, uint32_t seed, double lo = -1, double hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (auto& e : v) e = static_cast<float>(u(rng));  // exactly representable in f32
  return v;
}

inline void ExpectClose(const Tensor& got, const Shape& shape, const std::vector<double>& want,
                        double tol, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(got.shape(), shape) << what;
  const auto v = testing::Values(got);
  ASSERT_EQ(v.size(), want.size()) << what;
  for (size_t i = 0; i < v.size(); ++i)
    ASSERT_NEAR(v[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " at " << i;
}

// Odometer over `shape` (row-major); calls f(index vector) for every element.
template <typename F>
void ForEachIndex(const Shape& shape, F&& f) {
  const int64_t n = NumElements(shape);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(idx);
    for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
      if (++idx[static_cast<size_t>(i)] < shape[static_cast<size_t>(i)]) break;
      idx[static_cast<size_t>(i)] = 0;
    }
  }
}

inline int64_t Flat(const Shape& shape, const std::vector<int64_t>& idx) {
  int64_t o = 0;
  for (size_t i = 0; i < shape.size(); ++i) o = o * shape[i] + idx[i];
  return o;
}

}  // namespace vt::ops::nntest
