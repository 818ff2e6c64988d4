// The verification memo of `--verify memo` (forms/weight_cache.h): a per-user file, named by a
// digest of the identities (device, inode, size, mtime, ctime) of every file a verification
// covers, listing the entries already verified against exactly those files.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace vt::memo {

// The memo directory: `configured` if set, else $VTENSOR_VERIFY_MEMO_DIR, else
// $XDG_CACHE_HOME/vtensor/verify, else $HOME/.cache/vtensor/verify; "" when none is known.
std::string Directory(const std::string& configured);

// The memo file for `files` under `dir`, or "" when a file cannot be stat'ed or dir is "".
std::string FileFor(const std::set<std::string>& files, const std::string& dir);

// Entry indices recorded in the memo file at `path` (one per line); empty when it is absent.
std::vector<int> Read(const std::string& path);

// Records `verified` at `path` atomically, creating its directory; failures are ignored (the
// next load verifies again).
void Write(const std::string& path, const std::vector<int>& verified);

}  // namespace vt::memo
