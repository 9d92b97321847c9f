// The host-emulated CUDA device (cuda_emulation.h): the shim, the launch
// wrappers, the fiber scheduler behind __syncthreads, compiling and loading.
#include <theano/cache/compile_cache.h>
#include <theano/codegen/compiledir.h>
#include <theano/codegen/cuda_emulation.h>
#include <theano/runtime/error.h>
#include <ucontext.h>

#include <mutex>
#include <chrono>
#include <memory>

#include "../../emit/lower/lowering.h"  // lower::libm_prototypes: the prelude's text, which the shim repeats

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define THEANO_FIBER_ASAN 1
#else
#define THEANO_FIBER_ASAN 0
#endif

namespace theano::codegen {

namespace {

// The launch wrappers of kernel `name` taking the struct `params_t` of `np`
// values: a thread function, and the entry the host calls with the packed
// values, running the grid block by block, a block's threads in turn or as
// fibers through the host's scheduler (`barriers`).
void emit_launch_wrapper(CodeWriter& w, const std::string& name, const std::string& params_t, std::int64_t np,
                         bool barriers) {
  w.line("extern \"C\" void " + name + "(const " + params_t + ");");
  w.open("static void theano_emu_thread_" + name + "(void* arg, int64_t t)");
  w.line("threadIdx.x = (unsigned)t;");
  w.line(name + "(*(const " + params_t + "*)arg);");
  w.close();
  w.open("extern \"C\" void theano_emu_" + name +
         "(const int64_t* v, int64_t grid, int64_t block, const TheanoEmuHost* host)");
  w.line(params_t + " p;");
  w.line("for (int64_t j = 0; j < " + std::to_string(np) + "; ++j) p.v[j] = v[j];");
  w.line("theano_emu_host = host;");
  w.line("gridDim.x = (unsigned)grid;");
  w.line("blockDim.x = (unsigned)block;");
  w.open("for (int64_t b = 0; b < grid; ++b)");
  w.line("blockIdx.x = (unsigned)b;");
  w.line(barriers ? "host->run_block(host->self, block, &theano_emu_thread_" + name + ", &p);"
                  : "for (int64_t t = 0; t < block; ++t) theano_emu_thread_" + name + "(&p, t);");
  w.close();
  w.close();
}

/// The layout the shim declares as TheanoEmuHost.
struct EmuHostAbi {
  void (*run_block)(void* self, std::int64_t threads, void (*thread)(void*, std::int64_t), void* arg);
  void (*sync)(void* self);
  void* self;
};

}  // namespace

namespace {
// The shim proper; the libm prototypes follow it (lower::libm_prototypes).
constexpr std::string_view kShim = R"SHIM(// theano-cpp: host emulation of the CUDA kernel language (cuda_emulation.h)
#define THEANO_CUDA_EMULATION 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
struct theano_dim3 { unsigned x, y, z; };
static theano_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
struct TheanoEmuHost {
  void (*run_block)(void* self, long threads, void (*thread)(void*, long), void* arg);
  void (*sync)(void* self);
  void* self;
};
static const TheanoEmuHost* theano_emu_host = 0;
// A barrier: this fiber yields to the block's scheduler until every thread
// of the block got here; the indices are this thread's again afterwards.
static inline void __syncthreads() {
  const theano_dim3 t = threadIdx;
  theano_emu_host->sync(theano_emu_host->self);
  threadIdx = t;
}
// Fibers switch only at barriers, so a read-modify-write is atomic.
template <class T> static inline T atomicAdd(T* p, T v) { T old = *p; *p = old + v; return old; }
template <class T> static inline T atomicMax(T* p, T v) { T old = *p; if (v > old) *p = v; return old; }
template <class T> static inline T atomicMin(T* p, T v) { T old = *p; if (v < old) *p = v; return old; }
template <class T> static inline T atomicExch(T* p, T v) { T old = *p; *p = v; return old; }
template <class T> static inline T atomicCAS(T* p, T cmp, T v) { T old = *p; if (old == cmp) *p = v; return old; }
)SHIM";
}  // namespace

std::string_view emulation_shim() {
  static const std::string text = std::string(kShim) + std::string(lower::libm_prototypes());
  return text;
}

/// The fiber scheduler of barrier kernels: a block's threads are fibers
/// (ucontext) on the launching thread, run round after round, each until its
/// next __syncthreads or its end. One per EmulatedKernels (launches are
/// serialized), its stacks reused from block to block.
struct EmulatedKernels::Host {
  static constexpr std::size_t kStack = 256 * 1024;
  EmuHostAbi abi{};
  ucontext_t main{};
  std::vector<ucontext_t> fibers;
  std::vector<std::unique_ptr<char[]>> stacks;
  std::vector<char> done;
  std::int64_t current = 0;
  void (*thread)(void*, std::int64_t) = nullptr;
  void* arg = nullptr;
#if THEANO_FIBER_ASAN
  const void* main_bottom = nullptr;
  std::size_t main_size = 0;
#endif

  static thread_local Host* running;  // the scheduler whose block runs on this thread

  static void fiber_main() {
    Host* h = running;
#if THEANO_FIBER_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &h->main_bottom, &h->main_size);
#endif
    const std::int64_t t = h->current;
    h->thread(h->arg, t);
    h->done[static_cast<std::size_t>(t)] = 1;
#if THEANO_FIBER_ASAN
    __sanitizer_start_switch_fiber(nullptr, h->main_bottom, h->main_size);  // this fiber ends
#endif
    // Returning resumes uc_link (main).
  }

  static void sync(void* self) {
    Host* h = static_cast<Host*>(self);
    const std::int64_t t = h->current;
#if THEANO_FIBER_ASAN
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, h->main_bottom, h->main_size);
#endif
    swapcontext(&h->fibers[static_cast<std::size_t>(t)], &h->main);
#if THEANO_FIBER_ASAN
    __sanitizer_finish_switch_fiber(fake, &h->main_bottom, &h->main_size);
#endif
  }

  static void run_block(void* self, std::int64_t threads, void (*thread)(void*, std::int64_t), void* arg) {
    Host* h = static_cast<Host*>(self);
    const auto n = static_cast<std::size_t>(threads);
    while (h->stacks.size() < n) h->stacks.emplace_back(new char[kStack]);
    h->fibers.resize(n);
    h->done.assign(n, 0);
    h->thread = thread;
    h->arg = arg;
    running = h;
    for (std::size_t t = 0; t < n; ++t) {
      THEANO_INTERNAL_CHECK(getcontext(&h->fibers[t]) == 0) << "getcontext failed";
      h->fibers[t].uc_stack.ss_sp = h->stacks[t].get();
      h->fibers[t].uc_stack.ss_size = kStack;
      h->fibers[t].uc_link = &h->main;
      makecontext(&h->fibers[t], &Host::fiber_main, 0);
    }
    // Round after round: every thread runs to its next barrier (or its end).
    for (std::size_t left = n; left > 0;) {
      for (std::size_t t = 0; t < n; ++t) {
        if (h->done[t]) continue;
        h->current = static_cast<std::int64_t>(t);
#if THEANO_FIBER_ASAN
        void* fake = nullptr;
        __sanitizer_start_switch_fiber(&fake, h->stacks[t].get(), kStack);
#endif
        swapcontext(&h->main, &h->fibers[t]);
#if THEANO_FIBER_ASAN
        __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
        if (h->done[t]) --left;
      }
    }
    running = nullptr;
  }
};

thread_local EmulatedKernels::Host* EmulatedKernels::Host::running = nullptr;

using EmulatedLaunch = void (*)(const std::int64_t*, std::int64_t, std::int64_t, const EmuHostAbi*);

EmulatedKernels::EmulatedKernels(std::string_view source, std::vector<EmulatedKernelInfo> kernels,
                                 const CompileOptions& copts, cache::CompileCache* cache, const std::string& origin)
    : kernels_(std::move(kernels)), host_(std::make_unique<Host>()) {
  std::string text = std::string(emulation_shim()) + std::string(source);
  CodeWriter wrappers;
  wrappers.line("// ---- launch wrappers of the host-emulated device");
  for (const EmulatedKernelInfo& k : kernels_) {
    barriers_ = barriers_ || k.barriers;
    emit_launch_wrapper(wrappers, k.name, "theano_params_" + std::to_string(k.nparams), k.nparams, k.barriers);
  }
  text += wrappers.str();
  auto compile = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    CompiledObject obj = ClangCompiler(copts).compile(text, "theano_cuda_emulated.cpp");
    compile_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return obj;
  };
  std::string object;
  if (cache) {
    object = cache->get_or_produce(
        cache_key(copts, text),
        [&] {
          CompiledObject obj = compile();
          cache::Entry e{std::move(obj.bytes), text, compile_ms_, origin.substr(0, 300)};
          e.kind = "cuda emulated (host object)";
          return e;
        },
        &cache_hit_);
    cache_state_ = cache_hit_ ? "hit" : "miss";
  } else {
    object = compile().bytes;
    cache_state_ = "off";
  }
  module_ = JitLoader::instance().load(object, "theano_cuda_emulated");
  for (const EmulatedKernelInfo& k : kernels_) wrappers_.push_back(module_.symbol("theano_emu_" + k.name));
  host_->abi = EmuHostAbi{&Host::run_block, &Host::sync, host_.get()};
}

EmulatedKernels::~EmulatedKernels() = default;

void EmulatedKernels::launch(std::size_t kernel, unsigned grid, unsigned block, const std::int64_t* params) const {
  THEANO_INTERNAL_CHECK(kernel < kernels_.size()) << "emulated kernel " << kernel << " of " << kernels_.size();
  THEANO_USER_CHECK(block >= 1 && block <= 1024 && grid >= 1, ValueError)
      << "emulated launch of " << kernels_[kernel].name << ": a grid of " << grid << " blocks of " << block
      << " threads (1..1024 threads a block, at least one block)";
  std::lock_guard<std::mutex> lock(mutex_);
  reinterpret_cast<EmulatedLaunch>(wrappers_[kernel])(params, grid, block, &host_->abi);
}

}  // namespace theano::codegen
