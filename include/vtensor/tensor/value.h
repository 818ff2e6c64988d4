// Value: what flows along a graph edge at run time — a tensor, a sequence of tensors
// (ONNX sequence type) or nothing (an empty ONNX optional).
#pragma once

#include <vector>

#include "vtensor/tensor/tensor.h"

namespace vt {

class Value {
 public:
  enum class Kind { kNone, kTensor, kSequence };

  Value() = default;  // empty optional
  Value(Tensor t) : kind_(Kind::kTensor), tensor_(std::move(t)) {}  // NOLINT
  static Value Sequence(DType elem_type, std::vector<Tensor> items) {
    Value v;
    v.kind_ = Kind::kSequence;
    v.elem_type_ = elem_type;
    v.items_ = std::move(items);
    return v;
  }
  // Empty optional that remembers it wraps a sequence (for OptionalHasElement typing).
  static Value NoneOf(bool is_sequence, DType elem_type) {
    Value v;
    v.none_is_sequence_ = is_sequence;
    v.elem_type_ = elem_type;
    return v;
  }

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  const Tensor& tensor() const { return tensor_; }
  Tensor& tensor() { return tensor_; }
  const std::vector<Tensor>& sequence() const { return items_; }
  std::vector<Tensor>& sequence() { return items_; }
  // Element type of a sequence (or of an empty optional).
  DType elem_type() const { return elem_type_; }
  bool none_is_sequence() const { return none_is_sequence_; }

 private:
  Kind kind_ = Kind::kNone;
  Tensor tensor_;
  std::vector<Tensor> items_;
  DType elem_type_ = DType::kUndefined;
  bool none_is_sequence_ = false;
};

}  // namespace vt
