// Element alignment of borrowed bytes. Tensors borrowed from a model file (format/
// model_skeleton.h, external data) start wherever the file puts them, often at an odd
// offset; kernels and packers read their elements through typed pointers (float*, int64_t*),
// which need the element type's alignment (a misaligned typed read is undefined behaviour,
// and UBSan's alignment check reports it). Readers that take such tensors align them first.
#pragma once

#include <cstddef>

#include "vtensor/tensor/tensor.h"

namespace vt {

// Bytes a typed read of one `dt` element must be aligned to: alignof its C++ element type
// (1 for the byte types and the unpacked 4-bit types, 4 for complex64, 8 for complex128).
size_t NaturalAlignment(DType dt);

// True when t's first element sits at a multiple of NaturalAlignment(t.dtype()) (an
// undefined tensor counts as aligned).
bool IsNaturallyAligned(const Tensor& t);

// `t` itself when naturally aligned; else a dense copy in 64-byte aligned heap memory with the
// same name.
Tensor NaturallyAligned(const Tensor& t);

}  // namespace vt
