#include "ops/common/op_libs.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>

namespace vt::ops {
namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// Directories (with a trailing '/') of the file holding this code — a shared library, or the
// program, which the loader names as it was started (possibly relative, or without a
// directory when found on PATH) — and of the running program itself.
std::vector<std::string> OwnDirectories() {
  std::vector<std::string> dirs;
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&LoadOpLibs), &info) != 0 && info.dli_fname != nullptr)
    if (std::string d = DirectoryOf(info.dli_fname); !d.empty()) dirs.push_back(d);
  std::array<char, 4096> exe{};
  const ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  if (n > 0)
    if (std::string d = DirectoryOf(std::string(exe.data(), static_cast<size_t>(n)));
        !d.empty() && std::find(dirs.begin(), dirs.end(), d) == dirs.end())
      dirs.push_back(d);
  return dirs;
}

}  // namespace

std::vector<std::string> OpLibsCandidates() {
  if (const char* env = std::getenv("VTENSOR_OPLIBS"); env != nullptr && *env != '\0')
    return {env};
  std::vector<std::string> paths;
  for (const std::string& dir : OwnDirectories())
    for (const char* sub : {"", "lib/", "../lib/"}) paths.push_back(dir + sub + kOpLibsFile);
  paths.push_back(std::string(VT_OPLIBS_INSTALL_DIR) + "/" + kOpLibsFile);
  return paths;
}

Expected<const OpLibs*> LoadOpLibsFrom(const std::vector<std::string>& paths,
                                       const std::string& what) {
  std::string tried;
  for (const std::string& path : paths) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed: used until exit
    if (lib == nullptr) {
      const char* why = dlerror();  // names the path itself
      tried += "\n  " + (why ? std::string(why) : path + ": not loadable");
      continue;
    }
    using Entry = const OpLibs* (*)(int, size_t);
    auto entry = reinterpret_cast<Entry>(dlsym(lib, kOpLibsEntry));
    if (const OpLibs* t = entry ? entry(kOpLibsAbi, sizeof(OpLibs)) : nullptr) return t;
    tried += "\n  " + path + ": " +
             (entry ? "built for another vtensor (its table does not match this build's)"
                    : std::string("has no ") + kOpLibsEntry);
  }
  return FailedPrecondition(what + " needs vtensor's operator libraries plugin (" +
                            kOpLibsFile + "), which could not be loaded:" + tried);
}

Expected<const OpLibs*> LoadOpLibs(const std::string& what) {
  // The outcome is kept either way: a failed search is not repeated for every node. The
  // operator named in its message is the first one that asked.
  static const Expected<const OpLibs*> loaded = LoadOpLibsFrom(OpLibsCandidates(), what);
  return loaded;
}

}  // namespace vt::ops
