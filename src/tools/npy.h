// NumPy's .npy file format (versions 1.0, 2.0 and 3.0): a magic string, a version, a header
// length (2 bytes in 1.0, 4 bytes after), a Python dict literal with 'descr', 'fortran_order'
// and 'shape', then the raw elements. Used for `vtensor run --input NAME=FILE.npy` and
// `--save-outputs DIR --save-format npy` (docs/cli.md).
#pragma once

#include <string>
#include <string_view>

#include "vtensor/base/status.h"
#include "vtensor/tensor/tensor.h"

namespace vt {

// Parses the bytes of a .npy file into a contiguous row-major tensor in host byte order.
// Supported descr: bool (|b1), int8..int64 (i1..i8), uint8..uint64 (u1..u8), float16/32/64
// (f2, f4, f8), complex64/128 (c8, c16), any byte order ('<', '>', '|', '='). Fortran-order
// data is transposed into row-major order. `path` only names the file in errors.
// Errors: InvalidArgument naming `path` and the field (magic, version, header length,
// header, descr, fortran_order, shape, data size) for anything else.
Expected<Tensor> ParseNpy(std::string_view bytes, const std::string& path);
// Reads and parses `path`. Errors: NotFound, IoError, as ParseNpy.
Expected<Tensor> ReadNpy(const std::string& path);

// Serialises `t` (any layout; not string) as a version 1.0 .npy file, little-endian,
// C order, header padded to a multiple of 64 bytes. Errors: InvalidArgument for a string or
// bfloat16 tensor (NumPy has no such descr).
Expected<std::string> SerializeNpy(const Tensor& t);
// SerializeNpy, then WriteFileAtomic. Errors: as both.
Status WriteNpy(const std::string& path, const Tensor& t);

}  // namespace vt
