// MLIR textual syntax helpers for the StableHLO emitter (MLIR LangRef: builtin types, dense
// elements attributes, dense arrays, string literals). Internal to src/export.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/layout/dtype.h"
#include "vtensor/layout/layout.h"
#include "vtensor/tensor/tensor.h"

namespace vt::mlir {

// MLIR element type of an ONNX dtype ("f32", "i64", "ui8", "i1", ...); "" when it has none
// (strings, complex).
std::string ElementType(DType t);
// "tensor<1x3xf32>", "tensor<f32>", "tensor<?x3xf32>" (a negative dim is dynamic); `encoding` (an attribute, e.g. "#vt.layout<...>") is
// appended as the tensor encoding when non-empty.
std::string TensorType(DType t, const Shape& shape, std::string_view encoding = {});
// A float literal MLIR parses back to the same value of `t`: decimal with a '.', or the
// hexadecimal bit pattern for NaN and infinities.
std::string FloatLiteral(double v, DType t);
// "array<i64: 1, 2>" ("array<i64>" when empty).
std::string ArrayI64(const std::vector<int64_t>& v);
// "array<i1: true, false>".
std::string ArrayBool(const std::vector<bool>& v);
// A quoted MLIR string literal with \\, \" and non-printable bytes escaped as \XX.
std::string Quote(std::string_view s);
// "dense<...>" for `t` (splat when all elements are equal, hexadecimal little-endian bytes
// otherwise; booleans as nested true/false lists). Errors: Unimplemented for dtypes without an
// MLIR element type.
Expected<std::string> DenseLiteral(const Tensor& t);
// "dense<[[a, b], [c, d]]> : tensor<2x2xi64>" for an i64 matrix (conv / pool padding).
std::string DenseI64Matrix(const std::vector<std::pair<int64_t, int64_t>>& rows);

}  // namespace vt::mlir
