#include "vtensor/base/plugin.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>

namespace vt {
namespace {

// The absolute directory of `path`, with a trailing '/', or "" when it has none or cannot be
// resolved (a program started by a relative path is named relative to the working directory
// of its start).
std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  char* real = ::realpath(path.substr(0, slash + 1).c_str(), nullptr);
  if (real == nullptr) return "";
  std::string dir = real;
  std::free(real);
  return dir == "/" ? dir : dir + "/";
}

// Directories of the file holding this code — a shared library, or the program, which the
// loader names as it was started (possibly relative, or without a directory when found on
// PATH) — and of the running program itself, each once.
std::vector<std::string> OwnDirectories() {
  std::vector<std::string> dirs;
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&PluginCandidates), &info) != 0 &&
      info.dli_fname != nullptr)
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

std::vector<std::string> PluginCandidates(const PluginSpec& spec) {
  if (const char* env = std::getenv(spec.env); env != nullptr && *env != '\0') return {env};
  std::vector<std::string> paths;
  for (const std::string& dir : OwnDirectories())
    for (const char* sub : {"", "lib/", "../lib/"}) paths.push_back(dir + sub + spec.file);
  paths.push_back(std::string(spec.install_dir) + "/" + spec.file);
  return paths;
}

Expected<const void*> LoadPluginFrom(const PluginSpec& spec, const std::vector<std::string>& paths,
                                     const std::string& what) {
  std::string tried;
  for (const std::string& path : paths) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed: used until exit
    if (lib == nullptr) {
      const char* why = dlerror();  // names the path itself
      tried += "\n  " + (why ? std::string(why) : path + ": not loadable");
      continue;
    }
    using Entry = const void* (*)(int, size_t);
    auto entry = reinterpret_cast<Entry>(dlsym(lib, spec.entry));
    if (const void* t = entry ? entry(spec.abi, spec.table_bytes) : nullptr) return t;
    tried += "\n  " + path + ": " +
             (entry ? "built for another vtensor (its table does not match this build's)"
                    : std::string("has no ") + spec.entry);
  }
  return FailedPrecondition(what + " needs " + spec.description + " (" + spec.file +
                            "), which could not be loaded:" + tried);
}

}  // namespace vt
