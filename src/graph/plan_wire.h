// A reader of protobuf wire format over bytes in place, for the session plan graph
// (graph/plan_graph.h): the plan is read field by field straight into a Graph, without
// building its thousands of PlanGraphProto messages first (docs/compiled-tensors.md,
// "Session plans": on a plan hit their allocations were most of the plan's fresh pages).
//
// It reads what protobuf writes: varint (0), fixed64 (1), length-delimited (2) and fixed32
// (5) fields; repeated scalars packed or not. Groups (3, 4) and bytes that end inside a field
// make the message malformed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vt::plan_wire {

enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

struct Field {
  uint32_t number = 0;
  uint8_t type = 0;     // WireType
  uint64_t value = 0;   // kVarint, kFixed64, kFixed32: the raw bits
  const uint8_t* data = nullptr;  // kLen: the field's bytes
  size_t size = 0;

  std::string_view view() const { return {reinterpret_cast<const char*>(data), size}; }
  std::string str() const { return std::string(view()); }
};

// The fields of one message in wire order.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  explicit Reader(const Field& f) : Reader(f.data, f.size) {}
  // The next field into `f`; false at the end of the message or when its bytes are malformed
  // (then bad()).
  bool Next(Field* f);
  bool bad() const { return bad_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool bad_ = false;
};

// Appends the int64 values of a repeated field occurrence (one varint, or packed varints).
// False when `f` is neither or its packed bytes are malformed.
bool AppendInt64s(const Field& f, std::vector<int64_t>* out);
// The same for floats (one fixed32, or packed fixed32s).
bool AppendFloats(const Field& f, std::vector<float>* out);
// A double field's value (kFixed64 bits).
double AsDouble(const Field& f);

}  // namespace vt::plan_wire
