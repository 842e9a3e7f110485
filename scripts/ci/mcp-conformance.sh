#!/usr/bin/env bash
# Prints two lines: a Node >= 22 binary (the suite needs fs.globSync; scripts/ci/node-binary.sh) and
# the CLI of the official MCP conformance suite (@modelcontextprotocol/conformance from the npm
# registry), installed once per machine into $GW_MCP_CONFORMANCE_CACHE (default
# ~/.cache/gw-mcp-conformance). Its version: $GW_MCP_CONFORMANCE_VERSION (default 0.1.16, the
# release whose scenario checks our server test/mcp/conformance/scenario-server.ts follows).
# test/mcp/mcp-conformance.test.ts runs the suite's server scenarios with them, through gw and directly.
set -euo pipefail
version="${GW_MCP_CONFORMANCE_VERSION:-0.1.16}"
cache="${GW_MCP_CONFORMANCE_CACHE:-$HOME/.cache/gw-mcp-conformance}"
dir="$cache/$version"
cli="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
node_dir="$("$(dirname "$0")/node-binary.sh" 24)"
if [ ! -f "$cli" ]; then
  echo "mcp-conformance: installing @modelcontextprotocol/conformance@$version into $dir" >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --no-package-lock "@modelcontextprotocol/conformance@$version" >&2
fi
echo "$node_dir/bin/node"
echo "$cli"
