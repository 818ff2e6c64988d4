// Moving logical values into and out of a layout's physical bytes (docs/design.md §5: every packed form
// round-trips, unpack(pack(x)) == x bit-exact for lossless encodings). Reference
// implementations: one pass over the logical elements through Layout::ElementIndex, then the
// encoding's traits over the physical element space. Kernels' fast packers are checked against
// these.
#pragma once

#include <cstdint>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/layout/layout.h"

namespace vt {

// Element slots of the physical element-index space: StorageBytes() / block_bytes *
// block_elems. Padding slots are included.
int64_t PhysicalElements(const Layout& l);

// Packs numel() floats given in logical row-major order into StorageBytes() bytes; padding
// slots hold 0 before encoding. Errors: InvalidArgument when the layout has no encoding or two
// logical elements share a slot (a broadcast layout).
Expected<std::vector<uint8_t>> PackFloats(const float* logical, const Layout& l);

// Inverse: decodes `n` bytes (at least StorageBytes()) and gathers numel() floats in logical
// row-major order. Errors: InvalidArgument when the layout has no encoding or n is too small.
Expected<std::vector<float>> UnpackFloats(const uint8_t* bytes, size_t n, const Layout& l);

}  // namespace vt
