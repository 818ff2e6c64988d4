#include "forms/verify_memo.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>

#include "vtensor/base/blake3.h"
#include "vtensor/base/file.h"
#include "vtensor/forms/weight_form.h"

namespace vt::memo {

namespace {

// "path dev ino size mtime ctime" of a file, or "" when it cannot be stat'ed.
std::string FileIdentity(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "";
  return path + " " + std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " +
         std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + " " + std::to_string(st.st_ctim.tv_sec) + "." +
         std::to_string(st.st_ctim.tv_nsec) + "\n";
}

Status MakeDirs(const std::string& dir) {
  std::string cur;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      if (!cur.empty() && ::mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST)
        return IoError("cannot create directory '" + cur + "'");
    }
    if (i < dir.size()) cur += dir[i];
  }
  return Status::Ok();
}

}  // namespace

std::string Directory(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (const char* d = std::getenv("VTENSOR_VERIFY_MEMO_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/vtensor/verify";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/vtensor/verify";
  return "";
}

std::string FileFor(const std::set<std::string>& files, const std::string& dir) {
  // The ABI version is part of the key: a runtime reading packed bytes differently never
  // trusts another's verification.
  std::string key = std::string("vtensor verify memo v1 abi ") + kPackedAbiVersion + "\n";
  bool ok = true;
  for (const auto& f : files) {
    char* real = ::realpath(f.c_str(), nullptr);
    const std::string id = FileIdentity(real ? real : f);
    std::free(real);
    if (id.empty()) ok = false;
    key += id;
  }
  if (!ok || dir.empty()) return "";
  const auto digest = Blake3::Hash(key.data(), key.size());
  return dir + "/" + ToHex(digest.data(), digest.size());
}

std::vector<int> Read(const std::string& path) {
  std::vector<int> out;
  auto text = ReadFileToString(path);
  if (!text.ok()) return out;
  size_t pos = 0;
  while (pos < text->size()) {
    const size_t nl = text->find('\n', pos);
    const std::string line = text->substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (!line.empty()) out.push_back(std::atoi(line.c_str()));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

void Write(const std::string& path, const std::vector<int>& verified) {
  std::string text;
  for (int i : verified) text += std::to_string(i) + "\n";
  const std::string dir = path.substr(0, path.rfind('/'));
  if (MakeDirs(dir).ok()) (void)WriteFileAtomic(path, text);
}

}  // namespace vt::memo
