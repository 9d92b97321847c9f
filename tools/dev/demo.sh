#!/usr/bin/env bash
# README's demo command: set up, build (Release) and run the main demo, the
# Theano tutorial's logistic regression, twice on a fresh compiledir: the first
# run compiles its two functions with Clang, the second (a new process) loads
# them from the compile cache and says "(cache hit)".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
"$root/tools/dev/setup.sh" "$root/build/release" -DCMAKE_BUILD_TYPE=Release

demo="$root/build/release/examples/logistic_regression"
compiledir="$root/build/release/demo-compiledir"
rm -rf "$compiledir"
# Later THEANO_FLAGS keys win: keep the user's flags, use the demo's compiledir.
export THEANO_FLAGS="${THEANO_FLAGS:+$THEANO_FLAGS,}compiledir=$compiledir"

echo
echo "== run 1: $demo (empty compiledir: Clang compiles train and predict)"
"$demo" "$@"
echo
echo "== run 2: the same program again, a new process (the compiledir serves both functions)"
"$demo" "$@"
echo
echo "== more: $root/build/release/examples/mlp (W3 MLP: loss curve, per-node profile, mlp.dot)"
echo "         $root/build/release/examples/graph_demo (graph structures and algorithms)"
echo "         $root/build/release/examples/gpu_elemwise (W1 on a GPU, or the emulated device without one)"
echo "         $root/build/release/examples/gpu_training (training with the weights on a GPU, or the emulated device)"
echo "         $root/build/release/examples/rnn (an Elman RNN: scan, BPTT, a lazy ifelse)"
echo "         $root/build/release/examples/sparse_bow (a linear model on a CSR bag-of-words matrix)"
echo "         mpirun --allow-run-as-root -np 2 $root/build/release/examples/mlp_mpi (W3 data-parallel over MPI)"
