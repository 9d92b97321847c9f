#!/usr/bin/env bash
# Build time of user programs (issue 34): how long one translation unit that
# includes <theano/theano.hpp> takes to compile, beside a file with only
# <vector> and <string>. Compile only (-c), no link; median of N runs (wall
# seconds) and the preprocessed line count of each file.
#
#   bench/build_time.sh [-n N] [--pch] [--cxx COMPILER]
#
# Flags are those a consumer of theanoConfig.cmake gets for a -O2 build:
# -O2 -std=gnu++20 (theano::theano asks for cxx_std_20; CMake's default
# CMAKE_CXX_EXTENSIONS=ON makes it gnu++20) and the package's include
# directories as -isystem (imported targets' includes are system includes).
# --pch also builds theano/theano.hpp as a GCC/Clang precompiled header with the
# same flags (what theano_target_precompile_headers() sets up) and compiles
# the theano programs again with it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=5
pch=0
cxx=${CXX:-c++}
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) n=$2; shift 2 ;;
    --pch) pch=1; shift ;;
    --cxx) cxx=$2; shift 2 ;;
    *) echo "usage: bench/build_time.sh [-n N] [--pch] [--cxx COMPILER]" >&2; exit 2 ;;
  esac
done
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "build_time.sh: -n wants a positive count, got '$n'" >&2; exit 2; }

flags=(-O2 -std=gnu++20)
for d in runtime compiler cache codegen; do flags+=(-isystem "$root/$d/include"); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# median of the N wall times of a command (seconds, 2 decimals)
time_median() {
  local times=()
  for ((i = 0; i < n; i++)); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > /dev/null
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR] = $1} END {m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f", m}'
}

row() {  # row LABEL FILE [extra flags...]
  local label=$1 file=$2
  shift 2
  local lines s
  lines=$("$cxx" "${flags[@]}" "$@" -E "$file" | wc -l)
  s=$(time_median "$cxx" "${flags[@]}" "$@" -c "$file" -o "$work/out.o")
  printf '%-34s %8s s %10s lines\n' "$label" "$s" "$lines"
}

echo "compiler: $("$cxx" --version | head -1); flags: -O2 -std=gnu++20; median of $n"
row "(a) <vector> + <string>" "$root/bench/build_time/baseline.cpp"
row "(b) one-function program" "$root/bench/build_time/one_function.cpp"
row "(c) examples/logistic_regression" "$root/examples/logistic_regression.cpp" -I "$root/examples"
if [[ $pch == 1 ]]; then
  # The PCH is found through -include of a header whose .gch sits beside it.
  mkdir -p "$work/pch"
  printf '#include <theano/theano.hpp>\n' > "$work/pch/theano_pch.hpp"
  t0=$(date +%s.%N)
  "$cxx" "${flags[@]}" -x c++-header "$work/pch/theano_pch.hpp" -o "$work/pch/theano_pch.hpp.gch"
  t1=$(date +%s.%N)
  printf '%-34s %8.2f s (once)\n' "building the PCH" "$(echo "$t1 - $t0" | bc)"
  row "(b) one-function program, PCH" "$root/bench/build_time/one_function.cpp" -include "$work/pch/theano_pch.hpp"
  row "(c) logistic_regression, PCH" "$root/examples/logistic_regression.cpp" -I "$root/examples" -include "$work/pch/theano_pch.hpp"
fi
