#!/usr/bin/env bash
# The GPU check for a machine with an NVIDIA GPU but without this project's
# toolchain (no LLVM 19, no OpenBLAS, no network: the lent GPU machine of
# README.md, "On a machine with a GPU"). tools/dev/gpu-bundle.sh packs a
# Release tree's binaries and the libraries they load; this script unpacks
# them and runs what tools/dev/gpu-check.sh runs after its build:
#   - the real-GPU test cases ("cuda gpu:*", gpu_tests);
#   - every GPU op test ("cuda emulated*") on the real device
#     (THEANO_TEST_GPU_DEVICE=cuda0), in parallel shards;
#   - NVRTC's compile times ("cuda timings*");
#   - the training example and the demos with device=cuda;
#   - W1..W7 on the GPU and on the CPU (checksums verified), and W3's cold
#     compile for device=cuda.
#
#   tools/dev/gpu-check-bundled.sh unpack PART.tar.xz...   # into $TB (default /tmp/tb)
#   tools/dev/gpu-check-bundled.sh run LOGDIR [BUDGET_S]   # the checks; logs in LOGDIR
#
# GPU_CHECK_STEPS (default: all) names the steps to run, e.g. "real_gpu_cases ops"
# (machine gpu_tests real_gpu_cases ops gpu_training demo_logreg demo_mlp
# demo_lenet bench_gpu nvrtc_timings w3_cold bench_gpu_compile bench_cpu).
# BUDGET_S (default 480) bounds the whole run: each step's time limit is cut
# to what is left, and a step with under 10 s left is skipped (and counted as
# failed). Exit status of `run`: 0 all passed, 1 something failed (see LOGDIR/summary.txt).
set -uo pipefail
TB="${TB:-/tmp/tb}"
cmd="${1:-}"
shift || true

if [ "$cmd" = unpack ]; then
  mkdir -p "$TB"
  for part in "$@"; do xz -dc "$part" | tar -C "$TB" -xf - || exit 1; done
  exit 0
fi
[ "$cmd" = run ] || { echo "usage: $0 unpack PART... | run LOGDIR" >&2; exit 2; }
logs="$1"
budget="${2:-480}"
mkdir -p "$logs"
summary="$logs/summary.txt"
: >"$summary"
status=0

# The binaries name the tree they were built from (test fixtures, the examples'
# data): point that path at this checkout.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
built="$(cat "$TB/root.txt" 2>/dev/null || true)"
if [ -n "$built" ] && [ ! -e "$built" ]; then mkdir -p "$(dirname "$built")" && ln -s "$root" "$built"; fi

# Clang finds its resource headers beside the driver path it is given
# (codegen's THEANO_CLANG_DRIVER default, /usr/lib/llvm-19/bin/clang++).
mkdir -p /usr/lib/llvm-19/lib/clang/19 /usr/lib/llvm-19/bin
[ -d /usr/lib/llvm-19/lib/clang/19/include ] || cp -r "$TB/res/include" /usr/lib/llvm-19/lib/clang/19/
[ -e /usr/lib/llvm-19/bin/clang++ ] || { printf '#!/bin/sh\nexit 1\n' >/usr/lib/llvm-19/bin/clang++; chmod +x /usr/lib/llvm-19/bin/clang++; }

# NVRTC and cuBLAS/cuSOLVER: the machine's CUDA toolkit, else the pip wheels.
cuda_dirs=""
for lib in libnvrtc.so.13 libcublas.so.13 libcusolver.so.12; do
  f="$(find /usr/local/cuda/lib64 /usr/local/cuda/targets /usr/local /opt /usr/lib -name "$lib" 2>/dev/null | head -1)"
  [ -n "$f" ] && cuda_dirs="$cuda_dirs:$(dirname "$f")"
done
export LD_LIBRARY_PATH="$TB/lib$cuda_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export THEANO_FLAGS="compiledir=$TB/compiledir${THEANO_FLAGS:+,$THEANO_FLAGS}"
bin="$TB/bin"
jobs="$(nproc)"

wanted() { [ -z "${GPU_CHECK_STEPS:-}" ] || [[ " $GPU_CHECK_STEPS " == *" $1 "* ]]; }

step() {  # step NAME TIMEOUT_S COMMAND...: runs it, its output in LOGDIR/NAME.log
  local name="$1" limit="$2"
  shift 2
  wanted "$name" || return 0
  local t0=$SECONDS rc left=$((budget - SECONDS))
  if [ "$left" -lt 10 ]; then
    echo "$name: skipped (the budget of $budget s is spent)" | tee -a "$summary"
    status=1
    return 1
  fi
  [ "$limit" -le "$left" ] || limit="$left"
  timeout "$limit" "$@" >"$logs/$name.log" 2>&1
  rc=$?
  echo "$name: rc=$rc ($((SECONDS - t0)) s)" | tee -a "$summary"
  [ "$rc" = 0 ] || status=1
  return "$rc"
}

{
  echo "== machine"
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  lscpu | grep -E "Model name|^CPU\(s\)"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  ldd "$bin/codegen_tests" | grep -E "not found|nvrtc|LLVM" || true
} >"$logs/machine.log" 2>&1
cat "$logs/machine.log"

step gpu_tests 60 "$bin/gpu_tests"
step real_gpu_cases 120 "$bin/codegen_tests" -tc="cuda gpu:*" -s
grep -h "skipped: no usable GPU" "$logs/real_gpu_cases.log" | head -1 | tee -a "$summary"

# Every GPU op test on cuda0: shards of the "cuda emulated*" cases in parallel.
wanted ops && {
n="$("$bin/codegen_tests" -ltc -tc="cuda emulated*" | grep -c "^cuda emulated")"
shards=$((jobs < 12 ? jobs : 12))
per=$(((n + shards - 1) / shards))
echo "op tests on cuda0: $n cases in $shards shards" | tee -a "$summary"
t0=$SECONDS
for ((s = 0; s < shards; ++s)); do
  first=$((s * per + 1))
  last=$(((s + 1) * per))
  [ "$first" -le "$n" ] || break
  THEANO_TEST_GPU_DEVICE=cuda0 timeout 240 "$bin/codegen_tests" -tc="cuda emulated*" --order-by=name \
    --first="$first" --last="$last" >"$logs/ops_$s.log" 2>&1 &
done
wait
echo "op tests on cuda0: $((SECONDS - t0)) s" | tee -a "$summary"
grep -h "^\[doctest\] test cases:" "$logs"/ops_*.log | tee -a "$summary"
grep -hA3 "^TEST CASE:" "$logs"/ops_*.log | grep "TEST CASE" | sort -u | tee -a "$summary"
grep -q "Status: FAILURE" "$logs"/ops_*.log && status=1
}

step gpu_training 60 "$bin/gpu_training" --device cuda --steps 200 --feats 784 --samples 4096
step demo_logreg 60 env THEANO_FLAGS="device=cuda,$THEANO_FLAGS" "$bin/logistic_regression" --steps 2000 --every 1000
step demo_mlp 60 env THEANO_FLAGS="device=cuda,$THEANO_FLAGS" "$bin/mlp" --epochs 3 --dot /tmp/gpu-check-mlp.dot
step demo_lenet 90 env THEANO_FLAGS="device=cuda,$THEANO_FLAGS" "$bin/lenet" --epochs 10
step bench_gpu 150 "$bin/theano_bench" --device cuda --dtype all --quick --skip-compile --only W1,W2,W3,W4,W5,W6,W7
step nvrtc_timings 90 "$bin/codegen_tests" -tc="cuda timings*" -s
# W3's training step compiled cold for the GPU in fresh processes: the stages
# (log_compile), NVRTC's first compile of the process included.
step w3_cold 60 bash -c "for k in 1 2; do for dt in float32 float64; do
  THEANO_FLAGS=device=cuda,log_compile=1,compiledir=$TB/w3cold_\$k\$dt '$bin/theano_bench' --child W3 \$dt --no-next
  done; done"
step bench_gpu_compile 90 "$bin/theano_bench" --device cuda --dtype all --quick --only W3,W1,W5
step bench_cpu 120 "$bin/theano_bench" --dtype all --quick --skip-compile --only W1,W2,W3,W4,W5,W6,W7
echo "status=$status" | tee -a "$summary"
exit "$status"
