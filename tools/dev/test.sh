#!/usr/bin/env bash
# README's test command (and what CI runs): a Release build with the whole
# suite, then an AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer)
# build with the suite again, less the cases tests/asan-excluded.txt lists
# (THEANO_ASAN_ALL=1 runs those too).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jobs="$(nproc)"

"$root/tools/dev/setup.sh" "$root/build/release" -DCMAKE_BUILD_TYPE=Release
echo "== Release tests"
ctest --test-dir "$root/build/release" --output-on-failure -j "$jobs"

# The sanitizer tree leaves out bench/ (its programs run in the Release tree's
# bench/quick_run test; bench/fuzz --asan turns it back on) to keep CI within
# its time budget.
"$root/tools/dev/setup.sh" "$root/build/asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTHEANO_SANITIZE=ON \
  -DTHEANO_BUILD_BENCH=OFF
echo "== ASan + UBSan + LSan tests"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
exclude=()
if [[ "${THEANO_ASAN_ALL:-0}" != 1 ]]; then
  regex="$("$root/tools/dev/asan-excluded.sh" "$root/build/asan")"
  [[ -n "$regex" ]] && exclude=(-E "$regex")
fi
ctest --test-dir "$root/build/asan" --output-on-failure -j "$jobs" "${exclude[@]}"
