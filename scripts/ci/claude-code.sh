#!/usr/bin/env bash
# Prints the path of the Claude Code CLI (@anthropic-ai/claude-code from the npm registry, version
# $GW_CLAUDE_CODE_VERSION, default latest), installed once per machine into $GW_CLAUDE_CODE_CACHE
# (default ~/.cache/gw-claude-code): the Messages door's end-to-end test runs it against gw. Recent
# versions are a native binary (bin/claude.exe, put in place by the package's postinstall); older
# ones are cli.js, run with a Node >= 22 (scripts/ci/node-binary.sh).
set -euo pipefail
package="$("$(dirname "$0")/npm-tool.sh" @anthropic-ai/claude-code "${GW_CLAUDE_CODE_VERSION:-latest}" "${GW_CLAUDE_CODE_CACHE:-$HOME/.cache/gw-claude-code}")"
# The native binary once postinstall replaced the placeholder (a few hundred bytes), else cli.js.
if [ -f "$package/bin/claude.exe" ] && [ "$(stat -c %s "$package/bin/claude.exe")" -gt 1000000 ]; then
  echo "$package/bin/claude.exe"
else
  echo "$package/cli.js"
fi
