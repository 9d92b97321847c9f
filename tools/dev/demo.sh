#!/usr/bin/env bash
# README's demo command: set up, build (Release) and run the main demo.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
"$root/tools/dev/setup.sh" "$root/build/release" -DCMAKE_BUILD_TYPE=Release
exec "$root/build/release/examples/graph_demo"
