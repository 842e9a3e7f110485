#!/usr/bin/env bash
# `make bench` on another Node:  scripts/ci/bench-on-node.sh MAJOR   (the BENCH_* settings as for make bench)
# gw, the bare proxy, the load generator and the fake upstreams all run on that Node, in a copy of
# the tree whose native modules are built for it (node-tree.sh); dist/ must be built first.
set -euo pipefail
cd "$(dirname "$0")/../.."
major="${1:?usage: bench-on-node.sh MAJOR}"
[ -f dist/server/main.js ] || { echo "bench-on-node: build first (make build)" >&2; exit 2; }
. scripts/ci/node-tree.sh
node_tree "$major"
cd "$tree"
node --import tsx scripts/bench.ts
