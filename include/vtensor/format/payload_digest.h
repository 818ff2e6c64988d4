// Payload digest of a compiled tensor (each entry carries a digest of its own
// payload in metadata_props). Stored in CompiledTensorProto.metadata_props under the key
// kPayloadDigestKey as "ALGO:HEX" (lower-case hex of the raw digest):
//
//   xxh3-128  XXH3 128-bit (xxHash 0.8, seed 0) of the payload bytes; HEX = high 64 bits then
//             low 64 bits, big-endian (the XXH128 canonical form). What vtensor writes.
//   blake3    BLAKE3-256 of the payload bytes.
//   sha256    SHA-256 of the payload bytes.
//
// Why a non-cryptographic default: the payload digest detects damage (truncation, flipped
// bytes, a payload file swapped for another); it lives in the same file as the payload, so a
// cryptographic hash would add no protection against deliberate edits. Whether the entry
// belongs to *this* source is decided by the source digest (BLAKE3 or SHA-256,
// format/tensor_digest.h). XXH3 runs at memory speed, so `--verify always` costs little more
// than hashing the source once. See docs/compiled-tensors.md.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "vtensor/base/status.h"

namespace vt {

inline constexpr const char kPayloadDigestKey[] = "vt.payload_digest";

// "xxh3-128:<32 hex digits>" of `n` bytes at `data`.
std::string PayloadDigest(const void* data, size_t n);

// Checks `expected` ("ALGO:HEX" as above) against the bytes. Errors: InvalidArgument for an
// unknown algorithm or malformed hex; FailedPrecondition "payload digest mismatch" when they
// differ.
Status CheckPayloadDigest(std::string_view expected, const void* data, size_t n);

}  // namespace vt
