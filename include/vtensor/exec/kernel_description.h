// What a kernel chose when it was created, for `vtensor ... --explain`.
#pragma once

#include <string>

namespace vt {

// Implemented beside OpKernel by kernels whose choices are worth naming: the microkernel row
// they dispatch to, the layout of the tensors they produce (e.g. an attention node's KV cache,
// docs/attention.md). An optional interface rather than a member of OpKernel, which most
// kernels would leave empty; GraphRunner::KernelNotes asks each kernel whether it has one.
class KernelDescription {
 public:
  virtual ~KernelDescription() = default;
  // One line, no trailing newline; fixed once the kernel is created.
  virtual std::string Describe() const = 0;
};

}  // namespace vt
