#!/usr/bin/env bash
# The GPU check (issue 16), for a machine with an NVIDIA GPU and driver:
# builds the Release tree, runs every CUDA test (`ctest -R cuda`: NVRTC, the
# host-emulated device, and the real-GPU tests, which skip elsewhere), the GPU
# op tests again on the real device (THEANO_TEST_GPU_DEVICE=cuda0), then
# a training loop whose weights live on the GPU (examples/gpu_training), the
# demos with device=cuda (logistic regression, the MLP, LeNet's conv and pool), and W1..W7 on the GPU (bench/run --device cuda,
# checksums verified) beside the CPU, so their figures can go into
# bench/README.md.
#
#   tools/dev/gpu-check.sh [--no-bench]
#
# Exit status: 0 all passed; 1 a test or a checksum failed; 2 no usable GPU
# here (the reason is printed; the CUDA tests that need none still ran).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$root/build/release"
bench=1
[ "${1:-}" = "--no-bench" ] && bench=0

"$root/tools/dev/setup.sh" "$build" -DCMAKE_BUILD_TYPE=Release
echo "== CUDA tests (ctest -R cuda)"
ctest --test-dir "$build" -R cuda --output-on-failure -j "$(nproc)"

# Is a GPU usable? The real-GPU test case says why not when it skips.
probe="$("$build/tests/codegen_tests" -tc="cuda gpu:*" -s 2>&1 || true)"
if grep -q "skipped: no usable GPU" <<<"$probe"; then
  grep -o "skipped: no usable GPU.*" <<<"$probe" | head -1
  echo "gpu-check: no usable GPU here; the real-GPU tests and the GPU bench did not run"
  exit 2
fi
echo "== the real-GPU tests ran (not skipped)"

echo "== every GPU op test on cuda0 (THEANO_TEST_GPU_DEVICE=cuda0: the emulated cases on the real device)"
THEANO_TEST_GPU_DEVICE=cuda0 "$build/tests/codegen_tests" -tc="cuda emulated*"

echo "== training with the weights in GPU shared variables (examples/gpu_training) beside the CPU"
"$build/examples/gpu_training" --device cuda --steps 200 --feats 784 --samples 4096 | grep -v "^ |"

echo "== the demos with device=cuda (the same figures as on the CPU)"
THEANO_FLAGS="device=cuda${THEANO_FLAGS:+,$THEANO_FLAGS}" "$build/examples/logistic_regression" --steps 2000 --every 1000
THEANO_FLAGS="device=cuda${THEANO_FLAGS:+,$THEANO_FLAGS}" "$build/examples/mlp" --epochs 3 --dot /tmp/gpu-check-mlp.dot |
  grep -v "^ *[0-9.]*% "
THEANO_FLAGS="device=cuda${THEANO_FLAGS:+,$THEANO_FLAGS}" "$build/examples/lenet" --epochs 10 | grep -v "^ *[0-9.]*% "

if [ "$bench" = 1 ]; then
  echo "== W1..W7 on the GPU (bench/run --device cuda; checksums verified)"
  "$root/bench/run" --device cuda --dtype all --skip-compile
  echo "== W1..W7 on the CPU, same machine, for the ratios"
  "$root/bench/run" --dtype all --skip-compile
fi
