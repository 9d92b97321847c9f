/// \file
/// What cuBLAS (cublas.h) and cuSOLVER (cusolver.h) share (internal to
/// codegen/): opening a CUDA toolkit library by dlopen, trying its sonames
/// newest first, and one library handle per device, created on first use in
/// the device's current context and kept for the process's life.
#pragma once

#include <initializer_list>
#include <map>
#include <mutex>
#include <string>

namespace theano::codegen::cuda {

/// The first of `names` dlopen opens (RTLD_NOW | RTLD_LOCAL), or nullptr with
/// `why` naming `what`, each name's dlerror and `remedy`.
void* dlopen_first(std::initializer_list<const char*> names, const char* what, const char* remedy, std::string& why);

/// A library's handles, one per device; `create` is the library's
/// handle constructor (cublasCreate_v2, cusolverDnCreate; status 0 on success).
class DeviceHandles {
 public:
  using Create = int (*)(void**);
  /// The handle of `device`, created by `create` on first use; Error naming `what` when that fails.
  void* get(int device, Create create, const char* what);

 private:
  std::mutex mutex_;
  std::map<int, void*> handles_;
};

}  // namespace theano::codegen::cuda
