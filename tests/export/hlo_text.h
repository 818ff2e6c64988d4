// Test-only: reading the MLIR text vtensor's StableHLO emitter writes (generic op form) into an
// op tree for the reference interpreter (hlo_interpreter.h), plus the attribute accessors it
// needs. Only the syntax subset the emitter produces is accepted.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/layout/dtype.h"
#include "vtensor/layout/layout.h"

namespace vt::testing {

struct HOp;
using HRegion = std::vector<HOp>;

struct HOp {
  std::vector<std::string> results;       // "%3", or "%3#0", "%3#1" for multi-result ops
  std::string name;                       // "stablehlo.add"; "^bb0" marks a block header
  std::vector<std::string> operands;
  std::string attrs;                      // text between the attribute braces
  std::vector<std::string> result_types;
  std::vector<HRegion> regions;
  std::vector<std::string> block_args;    // of a "^bb0" marker
};

std::string_view Trim(std::string_view s);
std::vector<std::string_view> SplitLines(std::string_view t);
// Index of the bracket closing the one at `open` (same kind), skipping quoted strings; npos
// when unbalanced.
size_t Matching(std::string_view s, size_t open);
// Splits at top-level commas (all bracket kinds balanced, '->' ignored).
std::vector<std::string> SplitTop(std::string_view s);
// "tensor<2x3xf32[, encoding]>" -> (dtype, shape); a dynamic dim `?` is -1.
Expected<std::pair<DType, Shape>> ParseType(std::string_view t);
// Every (possibly negative) integer in `s`, in order.
std::vector<int64_t> ParseIntList(std::string_view s);

// Attribute accessors over an op's attribute text.
std::vector<int64_t> ArrayAttr(std::string_view attrs, const std::string& key, bool* found = nullptr);
std::vector<int64_t> ListAttr(std::string_view attrs, const std::string& key);
int64_t IntAttr(std::string_view attrs, const std::string& key, int64_t def);
double FloatAttr(std::string_view attrs, const std::string& key);
std::vector<std::pair<int64_t, int64_t>> PairsAttr(std::string_view attrs, const std::string& key);

// Parses ops from lines[*i] until a region end ("})", "}, {") or, when `top`, the "}" closing
// the function. Errors: InvalidArgument quoting the line.
Expected<HRegion> ParseRegion(const std::vector<std::string_view>& lines, size_t* i, bool top);

}  // namespace vt::testing
