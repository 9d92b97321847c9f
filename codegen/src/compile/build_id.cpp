// The build id of a loaded ELF object (see build_id.h).
#include "build_id.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

namespace theano::codegen::detail {
namespace {

// The loaded object starting at `base`, and its build id once found.
struct BuildIdSearch {
  const void* base;
  std::string id;
};

int find_build_id(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<BuildIdSearch*>(data);
  bool ours = false;
  for (int i = 0; i < info->dlpi_phnum && !ours; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && ph.p_offset == 0)
      ours = reinterpret_cast<const void*>(info->dlpi_addr + ph.p_vaddr) == search->base;
  }
  if (!ours) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) nh;
      std::memcpy(&nh, p, sizeof nh);
      const char* name = p + sizeof nh;
      const char* desc = name + ((nh.n_namesz + 3) & ~3u);
      const char* next = desc + ((nh.n_descsz + 3) & ~3u);
      if (next > end) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        static constexpr char kDigits[] = "0123456789abcdef";
        for (std::uint32_t k = 0; k < nh.n_descsz; ++k) {
          const auto b = static_cast<unsigned char>(desc[k]);
          search->id += kDigits[b >> 4];
          search->id += kDigits[b & 15];
        }
        return 1;
      }
      p = next;
    }
  }
  return 1;
}

}  // namespace

std::string elf_build_id(const void* address) {
  Dl_info info{};
  if (!::dladdr(address, &info) || !info.dli_fbase) return {};
  BuildIdSearch search{info.dli_fbase, {}};
  ::dl_iterate_phdr(&find_build_id, &search);
  return search.id;
}

}  // namespace theano::codegen::detail
