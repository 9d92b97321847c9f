// The build id of a loaded ELF object (see build_id.h).
#include "build_id.h"

#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

namespace theano::codegen::detail {
namespace {

// The loaded object whose segments hold `address`, and its build id once found.
struct BuildIdSearch {
  std::uintptr_t address;
  std::string id;
};

int find_build_id(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<BuildIdSearch*>(data);
  bool ours = false;
  for (int i = 0; i < info->dlpi_phnum && !ours; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    ours = ph.p_type == PT_LOAD && search->address >= begin && search->address - begin < ph.p_memsz;
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

// The object is found by its segments, not by dladdr: dladdr also looks for
// the symbol nearest the address, a walk over every dynamic symbol of the
// object (0.3 ms for libLLVM's).
std::string elf_build_id(const void* address) {
  BuildIdSearch search{reinterpret_cast<std::uintptr_t>(address), {}};
  ::dl_iterate_phdr(&find_build_id, &search);
  return search.id;
}

}  // namespace theano::codegen::detail
