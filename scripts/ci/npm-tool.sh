#!/usr/bin/env bash
# Usage: npm-tool.sh <package> <version> <cache dir>. Installs an npm package once per machine into
# <cache dir>/<version>, outside the repo (the real clients and suites the tests run against gw), and
# prints the package's directory. Its install log goes to stderr.
set -euo pipefail
package="$1" version="$2" cache="$3"
dir="$cache/$version"
if [ ! -f "$dir/node_modules/$package/package.json" ]; then
  echo "npm-tool: installing $package@$version into $dir" >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --no-package-lock "$package@$version" >&2
fi
echo "$dir/node_modules/$package"
