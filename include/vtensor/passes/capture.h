// Capture of layout facts on a loaded model (docs/design.md §3.1: the
// importer's identity and physical facts, completed here).
//
// The importer (format/onnx_import.h) records each initializer's identity. These functions
// complete the capture with what the compile pipeline needs, through the typed accessors of
// graph/tensor_meta.h:
//  * CaptureTensorMeta: the stored encoding of every initializer, and its physical layout
//    when the live tensor is not dense row-major (origin "capture"); views of another
//    initializer's storage record vt.alias_of.
//  * AttachCompiledEntries: every compiled entry of the file is attached
//    to its source initializer as vt.compiled.<architecture> = its layout (the first entry in
//    file order when an architecture has several). Entries that do not
//    resolve (unknown source, bad device or type index, malformed layout) are skipped: invalid
//    compiled data never makes a valid model unusable (docs/design.md §4).
#pragma once

#include <string>

#include "vtensor/base/status.h"
#include "vtensor/format/vtensor_ext.pb.h"
#include "vtensor/graph/graph.h"

namespace vt {

// Records encodings, non-trivial layouts and aliasing of every initializer, recursively.
// Never fails on valid models; returns InvalidArgument only for a layout that cannot be
// expressed (internal inconsistency).
Status CaptureTensorMeta(Model& model);

// Attaches the compiled entries of `ext` to the main graph's initializers. Returns the
// number attached (entries skipped as invalid or as a second entry of one architecture are
// not counted).
size_t AttachCompiledEntries(Model& model, const vtensor::ModelExtension& ext);

// LoadModel + the extension fields of the same file + both captures: what `vtensor passes`
// and `vtensor export` start from. Errors: LoadModel's (NotFound, IoError, InvalidArgument);
// a malformed extension is ignored like any invalid compiled data.
Expected<Model> LoadModelForCompile(const std::string& path);

}  // namespace vt
