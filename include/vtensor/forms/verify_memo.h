// The verification memo of the compiled-tensor cache (docs/compiled-tensors.md, "Verify
// policies"): which entries of a model were verified, remembered per identity of the files
// whose bytes the verification covered, so that `--verify memo` skips the hashing while none of
// them changed.
//
// Safety rules (a memo must never let changed bytes through):
//   - The key is every file's (realpath, device, inode, size, mtime ns, ctime ns) plus the
//     packed ABI. Any write to a file, a rename or link over it, or a copy to another machine
//     or directory changes ctime, inode or device, so the key differs and the entries are
//     verified again. ctime cannot be set from user space.
//   - Racy files: a memo is recorded only when every file's mtime and ctime are older than the
//     moment the model's read began minus kMemoRacyMarginNs. A file changed after the read
//     began then has a later ctime than the one recorded, even on a filesystem whose clock is
//     coarse (jiffies, or whole seconds), so it cannot keep the recorded identity.
//   - The identities are stat'ed again before the memo is written; if any changed during the
//     load, nothing is written.
//   - The memo text repeats its whole key and ends with a BLAKE3 digest of what precedes it; a
//     file that does not parse exactly (damaged, truncated, another format version, another
//     key) is ignored: every entry is verified again. Writes are atomic (a temp file renamed
//     over the memo), so concurrent writers leave one complete memo, never a mix.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace vt {

// Files younger than this, relative to the start of the read, are not memoized.
inline constexpr int64_t kMemoRacyMarginNs = 2'000'000'000;

// The memo file format line; a memo with another one is ignored.
inline constexpr const char* kMemoFormat = "vtensor verify memo v2";

// CLOCK_REALTIME in nanoseconds (the clock file timestamps use).
int64_t WallClockNs();

// The identity of a set of files.
struct MemoKey {
  std::string text;      // one "path dev ino size mtime ctime" line per file, in path order
  int64_t newest_ns = 0; // the latest mtime or ctime among the files
  bool ok = false;       // false when a file cannot be stat'ed (then there is no memo)
};
MemoKey ComputeMemoKey(const std::set<std::string>& files, const std::string& abi);

// The memo file name (hex BLAKE3 of the key text) inside `dir`.
std::string MemoPath(const std::string& dir, const MemoKey& key);

// The memo file's text for the verified entry indices of `key`.
std::string FormatMemo(const MemoKey& key, const std::vector<int>& verified);

// The verified entry indices, or nullopt when `text` is not exactly a memo of `key` (then
// nothing is trusted).
std::optional<std::vector<int>> ParseMemo(const std::string& text, const MemoKey& key);

// The memo directory: `configured` if set, else $VTENSOR_VERIFY_MEMO_DIR, else
// $XDG_CACHE_HOME/vtensor/verify, else $HOME/.cache/vtensor/verify; "" when none is known.
std::string MemoDirectory(const std::string& configured);

// Writes `text` to the memo file `path` atomically (a temporary renamed over it), creating its
// directory (mode 0700). Not fsync'ed: a memo lost or cut short by a crash fails its digest
// and only means verifying again. Failures are ignored for the same reason.
void WriteMemo(const std::string& path, const std::string& text);

// Whether a memo may be recorded for `key` read from `read_started_ns` on: the files are
// older than the racy margin and their identities are still `key` (stat'ed again now).
bool MemoRecordable(const MemoKey& key, const std::set<std::string>& files, const std::string& abi,
                    int64_t read_started_ns);

}  // namespace vt
