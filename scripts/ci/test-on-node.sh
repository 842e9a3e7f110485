#!/usr/bin/env bash
# Runs test suites on another Node:  scripts/ci/test-on-node.sh MAJOR SUITE...   (SUITE: a folder of test/)
# That Node comes from the npm registry (node-binary.sh). The native modules (better-sqlite3,
# hnswlib-node) are rebuilt for its ABI in a copy of node_modules, cached per Node and lock file in
# $GW_NODE_CACHE, so only the first run on a machine compiles. The suites run in a copy of the tree
# whose node_modules is that copy; on SQLite and in-memory counters only (Postgres and Redis are
# reached by pure-JavaScript clients, which the machine's Node covers in `make test`).
set -euo pipefail
cd "$(dirname "$0")/../.."
major="${1:?usage: test-on-node.sh MAJOR SUITE...}"
shift
[ "$#" -gt 0 ] || { echo "test-on-node: name at least one suite (a folder of test/)" >&2; exit 2; }
nodedir="$(scripts/ci/node-binary.sh "$major")"
cache="${GW_NODE_CACHE:-$HOME/.cache/gw-node}"
modules="$cache/modules-node$major-$("$nodedir/bin/node" -p process.versions.modules)-$(sha256sum package-lock.json | cut -c1-16)"
export PATH="$nodedir/bin:$PATH"
echo "test-on-node: $(node --version) from $nodedir"

if [ ! -f "$modules/.ready" ]; then
  echo "test-on-node: rebuilding the native modules for $(node --version) in $modules (once per lock file)"
  rm -rf "$modules" && mkdir -p "$modules"
  cp package.json package-lock.json "$modules/"
  cp -a node_modules "$modules/node_modules"
  npm_config_nodedir="$nodedir" npm rebuild --prefix "$modules" --foreground-scripts better-sqlite3 hnswlib-node >"$modules/rebuild.log" 2>&1 \
    || { tail -n 40 "$modules/rebuild.log" >&2; exit 1; }
  touch "$modules/.ready"
fi

tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT
tar -c --exclude=./.git --exclude=./node_modules --exclude=./web/node_modules --exclude=./data \
  --exclude=./test-output --exclude=./.pack --exclude=./.bench . | tar -x -C "$tree"
ln -s "$modules/node_modules" "$tree/node_modules"
ln -s "$PWD/web/node_modules" "$tree/web/node_modules"
files=()
for suite in "$@"; do
  [ -d "test/$suite" ] || { echo "test-on-node: no suite test/$suite" >&2; exit 2; }
  while IFS= read -r file; do files+=("$file"); done < <(cd "$tree" && find "test/$suite" -name '*.test.ts' | sort)
done
cd "$tree"
env -u GW_TEST_DATABASE_URL -u GW_TEST_REDIS_URL \
  node --import tsx --test --test-force-exit --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=600000 "${files[@]}"
