#!/usr/bin/env bash
# Prints two lines: a Node >= 22 binary (the suite needs fs.globSync; scripts/ci/node-binary.sh) and
# the CLI of the official MCP conformance suite (@modelcontextprotocol/conformance from the npm
# registry), installed once per machine into $GW_MCP_CONFORMANCE_CACHE (default
# ~/.cache/gw-mcp-conformance). Its version: $GW_MCP_CONFORMANCE_VERSION (default 0.1.16, the
# release whose scenario checks our server test/mcp/conformance/scenario-server.ts follows).
# test/mcp/mcp-conformance.test.ts runs the suite's server scenarios with them, through gw and directly.
set -euo pipefail
here="$(dirname "$0")"
node_dir="$("$here/node-binary.sh" 24)"
package="$("$here/npm-tool.sh" @modelcontextprotocol/conformance "${GW_MCP_CONFORMANCE_VERSION:-0.1.16}" "${GW_MCP_CONFORMANCE_CACHE:-$HOME/.cache/gw-mcp-conformance}")"
echo "$node_dir/bin/node"
echo "$package/dist/index.js"
