// Output comparison used by `vtensor run`, the conformance runner and real-model tests.
// Rule (numpy.testing.assert_allclose): |got - want| <= atol + rtol * |want| for floats;
// NaN equals NaN; infinities must match exactly; integers, bool and strings compare exactly.
#pragma once

#include <string>

#include "vtensor/tensor/value.h"

namespace vt {

struct CompareResult {
  bool pass = false;
  double max_abs_diff = 0.0;  // over all elements (0 for exact types that match)
  std::string detail;         // first mismatch or shape/dtype problem; empty on pass
};

CompareResult CompareValues(const Value& got, const Value& want, double rtol, double atol);
CompareResult CompareTensors(const Tensor& got, const Tensor& want, double rtol, double atol);

// "float32[1,3,224,224]" / "seq<float32>[3]" / "none"
std::string DescribeValue(const Value& v);

}  // namespace vt
