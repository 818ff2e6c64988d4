// RegexFullMatch's RE2 side of the operator libraries plugin (ops/common/op_libs.h).
#include <re2/re2.h>

#include <string>

#include "ops/oplibs/oplibs_table.h"

namespace vt::ops::oplibs {

void* RegexCompile(const std::string& pattern, std::string* error) {
  RE2::Options opt;
  opt.set_log_errors(false);
  auto* re = new RE2(pattern, opt);
  if (re->ok()) return re;
  *error = re->error();
  delete re;
  return nullptr;
}

bool RegexFullMatch(const void* re, const std::string& s) {
  return RE2::FullMatch(s, *static_cast<const RE2*>(re));
}

void RegexFree(void* re) { delete static_cast<RE2*>(re); }

}  // namespace vt::ops::oplibs
