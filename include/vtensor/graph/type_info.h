// TypeInfo and TensorSpec: the static type of a graph value (ONNX TypeProto subset) plus a
// metadata map with typed accessors (docs/design.md §3.2: every pass preserves metadata).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "vtensor/layout/dtype.h"

namespace vt {

// One dim of a static shape: a known value (>= 0), a symbol ("batch") or unknown.
struct Dim {
  int64_t value = -1;  // -1 when not a known constant
  std::string param;   // symbolic name, may be empty
  bool known() const { return value >= 0; }
  bool operator==(const Dim& o) const { return value == o.value && param == o.param; }
};
using SymShape = std::vector<Dim>;

std::string SymShapeToString(const SymShape& s);  // "[batch,3,?,224]"

struct TypeInfo {
  enum class Kind { kUnknown, kTensor, kSequence, kOptional, kMap };
  Kind kind = Kind::kUnknown;
  DType elem = DType::kUndefined;       // tensor element type (kTensor)
  std::optional<SymShape> shape;        // absent = unknown rank
  std::shared_ptr<TypeInfo> inner;      // element type of sequence / optional

  static TypeInfo Tensor(DType t, std::optional<SymShape> s) {
    TypeInfo ti;
    ti.kind = Kind::kTensor;
    ti.elem = t;
    ti.shape = std::move(s);
    return ti;
  }
  // "tensor(float32)[1,3,?]", "seq(tensor(int64))", "optional(...)"
  std::string ToString() const;
};

// Metadata values are typed; keys are documented constants (see graph/metadata_keys.h).
using MetaValue = std::variant<std::string, int64_t, double, std::vector<int64_t>>;

class TensorSpec {
 public:
  TensorSpec() = default;
  explicit TensorSpec(TypeInfo type) : type_(std::move(type)) {}

  const TypeInfo& type() const { return type_; }
  TypeInfo& mutable_type() { return type_; }
  DType dtype() const { return type_.elem; }
  const std::optional<SymShape>& shape() const { return type_.shape; }

  // Generic metadata access.
  const std::map<std::string, MetaValue>& metadata() const { return meta_; }
  void SetMeta(const std::string& key, MetaValue v) { meta_[key] = std::move(v); }
  const MetaValue* FindMeta(const std::string& key) const {
    auto it = meta_.find(key);
    return it == meta_.end() ? nullptr : &it->second;
  }

  // Typed accessors. identity: initializer name or canonical constant name.
  std::optional<std::string> identity() const;
  void set_identity(const std::string& name) { SetMeta("vt.identity", name); }

 private:
  TypeInfo type_;
  std::map<std::string, MetaValue> meta_;
};

}  // namespace vt
