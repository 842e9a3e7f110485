#!/usr/bin/env bash
# Prints the path of the OpenAI Codex CLI's native binary (@openai/codex from the npm registry,
# version $GW_CODEX_VERSION, default latest), installed once per machine into $GW_CODEX_CACHE
# (default ~/.cache/gw-codex): the Responses door's end-to-end test runs `codex exec` against gw. The
# package's bin/codex.js only picks the platform package's binary and spawns it, so the test runs
# that binary itself (no Node version to match).
set -euo pipefail
package="$("$(dirname "$0")/npm-tool.sh" @openai/codex "${GW_CODEX_VERSION:-latest}" "${GW_CODEX_CACHE:-$HOME/.cache/gw-codex}")"
binary="$(find "$(dirname "$package")" -path '*/vendor/*' -type f -name codex -perm -u+x 2>/dev/null | head -n 1)"
if [ -z "$binary" ]; then
  echo "codex: no native binary under $(dirname "$package")" >&2
  exit 1
fi
echo "$binary"
