# Sourced by test-on-node.sh and bench-on-node.sh:  node_tree MAJOR
# Puts a Node of that major version (node-binary.sh) first on PATH and sets `tree` to a copy of this
# tree (dist/ as built, no .git, data or test output) whose node_modules is a copy with the native
# modules (better-sqlite3, hnswlib-node) rebuilt for that Node's ABI, cached per Node and lock file
# in $GW_NODE_CACHE, so only the first run on a machine compiles. The copy is removed on exit.
node_tree() {
  local major="$1" nodedir cache modules
  nodedir="$(scripts/ci/node-binary.sh "$major")"
  cache="${GW_NODE_CACHE:-$HOME/.cache/gw-node}"
  modules="$cache/modules-node$major-$("$nodedir/bin/node" -p process.versions.modules)-$(sha256sum package-lock.json | cut -c1-16)"
  export PATH="$nodedir/bin:$PATH"
  echo "node-tree: $(node --version) from $nodedir"
  if [ ! -f "$modules/.ready" ]; then
    echo "node-tree: rebuilding the native modules for $(node --version) in $modules (once per lock file)"
    rm -rf "$modules" && mkdir -p "$modules"
    cp package.json package-lock.json "$modules/"
    cp -a node_modules "$modules/node_modules"
    npm_config_nodedir="$nodedir" npm rebuild --prefix "$modules" --foreground-scripts better-sqlite3 hnswlib-node >"$modules/rebuild.log" 2>&1 \
      || { tail -n 40 "$modules/rebuild.log" >&2; return 1; }
    touch "$modules/.ready"
  fi
  tree="$(mktemp -d)"
  trap 'rm -rf "$tree"' EXIT
  tar -c --exclude=./.git --exclude=./node_modules --exclude=./web/node_modules --exclude=./data \
    --exclude=./test-output --exclude=./.pack --exclude=./.bench . | tar -x -C "$tree"
  ln -s "$modules/node_modules" "$tree/node_modules"
  ln -s "$PWD/web/node_modules" "$tree/web/node_modules"
}
