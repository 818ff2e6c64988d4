// The operator libraries plugin's own functions (ops/common/op_libs.h has the table they fill).
#pragma once

#include <string>

namespace vt::ops::oplibs {

// RE2 (regex_re2.cc): see OpLibs::regex_compile, regex_full_match and regex_free.
void* RegexCompile(const std::string& pattern, std::string* error);
bool RegexFullMatch(const void* re, const std::string& s);
void RegexFree(void* re);

}  // namespace vt::ops::oplibs
