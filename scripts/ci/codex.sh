#!/usr/bin/env bash
# Prints the path of the OpenAI Codex CLI's native binary (@openai/codex from the npm registry),
# installed once per machine into $GW_CODEX_CACHE (default ~/.cache/gw-codex), outside the repo: the
# Responses door's end-to-end test runs `codex exec` against gw. Its version: $GW_CODEX_VERSION
# (default latest). The package's bin/codex.js only picks the platform package's binary and spawns it,
# so the test runs that binary itself (no Node version to match).
set -euo pipefail
version="${GW_CODEX_VERSION:-latest}"
cache="${GW_CODEX_CACHE:-$HOME/.cache/gw-codex}"
dir="$cache/$version"
package="$dir/node_modules/@openai/codex"
if [ ! -f "$package/package.json" ]; then
  echo "codex: installing @openai/codex@$version into $dir" >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --no-package-lock "@openai/codex@$version" >&2
fi
binary="$(find "$dir/node_modules/@openai" -path '*/vendor/*' -type f -name codex -perm -u+x 2>/dev/null | head -n 1)"
if [ -z "$binary" ]; then
  echo "codex: no native binary under $dir/node_modules/@openai" >&2
  exit 1
fi
echo "$binary"
