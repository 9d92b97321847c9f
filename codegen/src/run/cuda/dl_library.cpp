// Opening cuBLAS / cuSOLVER and their per-device handles (dl_library.h).
#include "dl_library.h"

#include <dlfcn.h>
#include <theano/runtime/error.h>

namespace theano::codegen::cuda {

void* dlopen_first(std::initializer_list<const char*> names, const char* what, const char* remedy, std::string& why) {
  std::string tried;
  for (const char* name : names) {
    if (void* lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
    const char* e = ::dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + (e ? e : name);
  }
  why = std::string("cannot dlopen ") + what + " (" + tried + "); " + remedy;
  return nullptr;
}

void* DeviceHandles::get(int device, Create create, const char* what) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = handles_.find(device);
  if (it == handles_.end()) {
    void* h = nullptr;
    const int s = create(&h);
    THEANO_USER_CHECK(s == 0, Error) << what << " failed with status " << s;
    it = handles_.emplace(device, h).first;  // kept for the process's life (default stream)
  }
  return it->second;
}

}  // namespace theano::codegen::cuda
