#include "vtensor/format/payload_digest.h"

#include <xxhash.h>

#include "format/payload_digest_impl.h"
#include "vtensor/base/blake3.h"
#include "vtensor/format/tensor_digest.h"

namespace vt {

namespace {

bool HasAvx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

std::string Xxh3Hex(const void* data, size_t n) {
  if (HasAvx2()) {
    unsigned char out[16];
    internal::Xxh3_128Avx2(data, n, out);
    return ToHex(out, sizeof(out));
  }
  const XXH128_hash_t h = XXH3_128bits(data, n);
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, h);
  return ToHex(c.digest, sizeof(c.digest));
}

}  // namespace

std::string PayloadDigest(const void* data, size_t n) { return "xxh3-128:" + Xxh3Hex(data, n); }

Status CheckPayloadDigest(std::string_view expected, const void* data, size_t n) {
  const size_t colon = expected.find(':');
  if (colon == std::string_view::npos)
    return InvalidArgument("payload digest '" + std::string(expected) + "' is not ALGO:HEX");
  const std::string_view algo = expected.substr(0, colon), hex = expected.substr(colon + 1);
  std::string have;
  if (algo == "xxh3-128") {
    have = Xxh3Hex(data, n);
  } else if (auto a = DigestAlgorithmFromName(algo)) {
    Digester d(*a);
    d.Update(data, n);
    VT_ASSIGN_OR_RETURN(const std::string raw, d.Finish());
    have = ToHex(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  } else {
    return InvalidArgument("payload digest algorithm '" + std::string(algo) +
                           "' is unknown (known: xxh3-128, blake3, sha256)");
  }
  if (hex.size() != have.size())
    return InvalidArgument("payload digest '" + std::string(expected) + "' has " +
                           std::to_string(hex.size()) + " hex digits, expected " +
                           std::to_string(have.size()));
  for (size_t i = 0; i < hex.size(); ++i) {
    const char c = hex[i];
    const char lc = (c >= 'A' && c <= 'F') ? static_cast<char>(c - 'A' + 'a') : c;
    if (lc != have[i]) return FailedPrecondition("payload digest mismatch: stored " +
                                                 std::string(algo) + ":" + std::string(hex) +
                                                 ", payload hashes to " + have);
  }
  return Status::Ok();
}

}  // namespace vt
