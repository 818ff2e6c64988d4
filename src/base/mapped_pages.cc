#include "vtensor/base/mapped_pages.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "vtensor/base/file.h"

namespace vt {
namespace {

std::string_view NextToken(std::string_view* s) {
  const size_t b = s->find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    *s = {};
    return {};
  }
  const size_t e = s->find_first_of(" \t", b);
  std::string_view t = s->substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
  *s = e == std::string_view::npos ? std::string_view{} : s->substr(e);
  return t;
}

uint64_t Hex(std::string_view s) { return std::strtoull(std::string(s).c_str(), nullptr, 16); }

// A mapping's header line: "lo-hi perms offset dev inode [path]". True when it is a file
// mapping this figure counts (read-only, not executable, a path, at least kHugeMapBytes).
bool CountedMapping(std::string_view line) {
  const std::string_view range = NextToken(&line), perms = NextToken(&line);
  NextToken(&line);  // offset
  NextToken(&line);  // device
  const std::string_view inode = NextToken(&line), path = NextToken(&line);
  const size_t dash = range.find('-');
  if (dash == std::string_view::npos || perms.size() != 4 || inode == "0" || path.empty() ||
      path[0] != '/')
    return false;
  const uint64_t lo = Hex(range.substr(0, dash)), hi = Hex(range.substr(dash + 1));
  return perms[0] == 'r' && perms[1] != 'w' && perms[2] != 'x' && hi - lo >= kHugeMapBytes;
}

}  // namespace

FileMappingPages ParseFileMappingPages(std::string_view smaps) {
  FileMappingPages r;
  bool counted = false;
  while (!smaps.empty()) {
    const size_t nl = smaps.find('\n');
    std::string_view line = smaps.substr(0, nl);
    smaps = nl == std::string_view::npos ? std::string_view{} : smaps.substr(nl + 1);
    std::string_view rest = line;
    const std::string_view key = NextToken(&rest);
    if (key.empty()) continue;
    if (key.back() != ':') {  // a mapping's header line; fields are "Key: value kB"
      counted = CountedMapping(line);
      r.mappings += counted ? 1 : 0;
      continue;
    }
    if (!counted || (key != "Rss:" && key != "FilePmdMapped:")) continue;
    const int64_t bytes = std::atoll(std::string(NextToken(&rest)).c_str()) * 1024;
    (key == "Rss:" ? r.rss_bytes : r.pmd_mapped_bytes) += bytes;
  }
  return r;
}

FileMappingPages ReadFileMappingPages() {
  // Read, not mapped: /proc files report size 0 (ReadFileToString would see nothing).
  std::ifstream in("/proc/self/smaps");
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return ParseFileMappingPages(text.str());
}

}  // namespace vt
