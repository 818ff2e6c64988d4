#include "vtensor/forms/verify_memo.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <ctime>

#include "vtensor/base/blake3.h"
#include "vtensor/base/temp_file.h"

namespace vt {
namespace {

int64_t Ns(const struct timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; }

std::string Digest(const std::string& s) {
  const auto d = Blake3::Hash(s.data(), s.size());
  return ToHex(d.data(), d.size());
}

bool MakeDirs(const std::string& dir) {
  std::string cur;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if ((i == dir.size() || dir[i] == '/') && !cur.empty() && ::mkdir(cur.c_str(), 0700) != 0 &&
        errno != EEXIST)
      return false;
    if (i < dir.size()) cur += dir[i];
  }
  return true;
}

}  // namespace

std::string MemoDirectory(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (const char* d = std::getenv("VTENSOR_VERIFY_MEMO_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/vtensor/verify";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/vtensor/verify";
  return "";
}

void WriteMemo(const std::string& path, const std::string& text) {
  if (!MakeDirs(path.substr(0, path.rfind('/')))) return;
  if (auto f = TempFile::Create(path); f.ok())
    if ((*f)->Write(text.data(), text.size()).ok()) (void)(*f)->Publish(/*durable=*/false);
}

int64_t WallClockNs() {
  struct timespec t;
  ::clock_gettime(CLOCK_REALTIME, &t);
  return Ns(t);
}

MemoKey ComputeMemoKey(const std::set<std::string>& files, const std::string& abi) {
  MemoKey k;
  k.ok = true;
  k.text = std::string(kMemoFormat) + " abi " + abi + "\n";
  for (const auto& f : files) {
    char* real = ::realpath(f.c_str(), nullptr);
    const std::string path = real ? real : f;
    std::free(real);
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      k.ok = false;
      continue;
    }
    k.newest_ns = std::max({k.newest_ns, Ns(st.st_mtim), Ns(st.st_ctim)});
    k.text += path + " " + std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " +
              std::to_string(st.st_size) + " " + std::to_string(Ns(st.st_mtim)) + " " +
              std::to_string(Ns(st.st_ctim)) + "\n";
  }
  return k;
}

std::string MemoPath(const std::string& dir, const MemoKey& key) {
  return dir + "/" + Digest(key.text);
}

std::string FormatMemo(const MemoKey& key, const std::vector<int>& verified) {
  std::string body = key.text + "verified";
  for (int i : verified) body += " " + std::to_string(i);
  body += "\n";
  return body + "end " + Digest(body) + "\n";
}

std::optional<std::vector<int>> ParseMemo(const std::string& text, const MemoKey& key) {
  if (text.compare(0, key.text.size(), key.text) != 0) return std::nullopt;
  const size_t end = text.rfind("end ");
  if (end == std::string::npos || end < key.text.size()) return std::nullopt;
  const std::string body = text.substr(0, end);
  if (text.substr(end) != "end " + Digest(body) + "\n") return std::nullopt;
  const std::string line = body.substr(key.text.size());
  static constexpr std::string_view kVerified = "verified";
  if (line.compare(0, kVerified.size(), kVerified) != 0 || line.back() != '\n') return std::nullopt;
  std::vector<int> out;
  const char* p = line.data() + kVerified.size();
  const char* last = line.data() + line.size() - 1;
  while (p < last) {
    if (*p != ' ') return std::nullopt;
    int v = -1;
    auto [q, ec] = std::from_chars(p + 1, last, v);
    if (ec != std::errc() || v < 0) return std::nullopt;
    out.push_back(v);
    p = q;
  }
  return out;
}

bool MemoRecordable(const MemoKey& key, const std::set<std::string>& files, const std::string& abi,
                    int64_t read_started_ns) {
  if (!key.ok || key.newest_ns >= read_started_ns - kMemoRacyMarginNs) return false;
  const MemoKey now = ComputeMemoKey(files, abi);
  return now.ok && now.text == key.text;
}

}  // namespace vt
