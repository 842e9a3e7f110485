#!/usr/bin/env bash
# Runs test suites on another Node:  scripts/ci/test-on-node.sh MAJOR SUITE...   (SUITE: a folder of test/)
# That Node comes from the npm registry; the suites run in a copy of the tree whose native modules
# are built for it (node-tree.sh); on SQLite and in-memory counters only (Postgres and Redis are
# reached by pure-JavaScript clients, which the machine's Node covers in `make test`).
set -euo pipefail
cd "$(dirname "$0")/../.."
major="${1:?usage: test-on-node.sh MAJOR SUITE...}"
shift
[ "$#" -gt 0 ] || { echo "test-on-node: name at least one suite (a folder of test/)" >&2; exit 2; }
. scripts/ci/node-tree.sh
node_tree "$major"
files=()
for suite in "$@"; do
  [ -d "test/$suite" ] || { echo "test-on-node: no suite test/$suite" >&2; exit 2; }
  while IFS= read -r file; do files+=("$file"); done < <(cd "$tree" && find "test/$suite" -name '*.test.ts' | sort)
done
cd "$tree"
env -u GW_TEST_DATABASE_URL -u GW_TEST_REDIS_URL \
  node --import tsx --test --test-force-exit --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=600000 "${files[@]}"
