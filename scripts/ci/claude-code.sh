#!/usr/bin/env bash
# Prints the path of the Claude Code CLI (@anthropic-ai/claude-code from the npm registry), installed
# once per machine into $GW_CLAUDE_CODE_CACHE (default ~/.cache/gw-claude-code), outside the repo:
# the Messages door's end-to-end test runs it against gw. Its version: $GW_CLAUDE_CODE_VERSION (default
# latest). Recent versions are a native binary (bin/claude.exe, put in place by the package's
# postinstall); older ones are cli.js, run with a Node >= 22 (scripts/ci/node-binary.sh).
set -euo pipefail
version="${GW_CLAUDE_CODE_VERSION:-latest}"
cache="${GW_CLAUDE_CODE_CACHE:-$HOME/.cache/gw-claude-code}"
dir="$cache/$version"
package="$dir/node_modules/@anthropic-ai/claude-code"
if [ ! -f "$package/package.json" ]; then
  echo "claude-code: installing @anthropic-ai/claude-code@$version into $dir" >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --no-package-lock "@anthropic-ai/claude-code@$version" >&2
fi
# The native binary once postinstall replaced the placeholder (a few hundred bytes), else cli.js.
if [ -f "$package/bin/claude.exe" ] && [ "$(stat -c %s "$package/bin/claude.exe")" -gt 1000000 ]; then
  echo "$package/bin/claude.exe"
else
  echo "$package/cli.js"
fi
