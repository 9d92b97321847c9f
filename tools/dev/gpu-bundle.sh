#!/usr/bin/env bash
# Packs what tools/dev/gpu-check-bundled.sh needs on a GPU machine that lacks
# this project's toolchain: the Release tree's test, bench and example
# binaries (stripped), every library they load that is not glibc's or CUDA's
# own, and Clang's resource headers. Two xz parts, each small enough to travel
# on its own (the lent GPU machine takes at most 64 MiB per call): part 1
# holds libLLVM and libclang-cpp, part 2 the rest. See README.md, "On a
# machine with a GPU".
#
#   tools/dev/gpu-bundle.sh OUTDIR [BUILD]     # BUILD defaults to build/release
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?usage: gpu-bundle.sh OUTDIR [BUILD]}"
build="${2:-$root/build/release}"
bins=(tests/codegen_tests tests/gpu_tests bench/theano_bench examples/gpu_training
      examples/logistic_regression examples/mlp examples/lenet)

ninja -C "$build" $(for b in "${bins[@]}"; do basename "$b"; done) >&2
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/p1/lib" "$stage/p2/lib" "$stage/p2/bin" "$stage/p2/res" "$out"
for b in "${bins[@]}"; do strip -o "$stage/p2/bin/$(basename "$b")" "$build/$b"; done
# glibc's libraries and the CUDA toolkit's are the GPU machine's own.
# OpenBLAS is opened on the first BLAS call (runtime/blas_library.h), so ldd
# of the binaries does not list it: it and what it needs are added by name.
openblas="$(ldconfig -p | awk '/libopenblas\.so\.0 .*x86-64/ {print $NF; exit}')"
[ -n "$openblas" ] || { echo "gpu-bundle.sh: libopenblas.so.0 not found (ldconfig -p)" >&2; exit 1; }
{ ldd "${bins[@]/#/$build/}" "$openblas" | awk '$3 ~ /^\// {print $3}'; echo "$openblas"; } | sort -u |
  grep -v -E '/(libc|libm|libpthread|librt|libdl|libmvec)\.so|ld-linux|libnvrtc|libcublas|libcusolver' |
  while read -r lib; do
    case "$lib" in
      */libLLVM.so.* | */libclang-cpp.so.*) cp -L "$lib" "$stage/p1/lib/" ;;
      *) cp -L "$lib" "$stage/p2/lib/" ;;
    esac
  done
echo "$root" >"$stage/p2/root.txt"
cp -r "$(dirname "$(readlink -f /usr/lib/llvm-19/bin/clang++)")/../lib/clang/19/include" "$stage/p2/res/"
for p in p1 p2; do tar -C "$stage/$p" -cf - . | xz -9 -T0 >"$out/$p.tar.xz"; done
ls -l "$out"/p1.tar.xz "$out"/p2.tar.xz
