#!/usr/bin/env bash
# Installs the Debian packages theano-cpp needs (only those missing, so it is
# idempotent and fast on a ready machine), then configures and builds one build
# tree. Usage: tools/dev/setup.sh <build-dir> [extra cmake args...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:?usage: setup.sh <build-dir> [cmake args...]}"
shift

packages=(
  cmake ninja-build g++ pkg-config
  llvm-19-dev libclang-19-dev libclang-cpp19-dev clang-19 libclang-common-19-dev liblld-19-dev
  libboost-filesystem-dev libboost-dev
  libopenblas-dev zlib1g-dev
  # libzip-dev's CMake config (Debian 12, Ubuntu 24.04) fails unless its tools are installed.
  libzip-dev zipcmp zipmerge ziptool
  doctest-dev libdlpack-dev
  graphviz
  # Beyond one machine (issue 21): MPI collectives and the Redis remote cache
  # tier (hiredis client, OpenSSL's HMAC; a real redis-server in the tests).
  openmpi-bin libopenmpi-dev libhiredis-dev libssl-dev redis-server
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing Debian packages: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ -d /usr/local/cuda ]; then
  echo "== CUDA toolkit found at /usr/local/cuda"
  export PATH="/usr/local/cuda/bin:$PATH"
fi

echo "== configuring $build"
cmake -S "$root" -B "$build" -G Ninja "$@"
echo "== building $build"
cmake --build "$build" -j "$(nproc)"
