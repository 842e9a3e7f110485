#!/usr/bin/env bash
# The console's browser tests drive Debian's Chromium at /usr/bin/chromium (never a downloaded
# browser). Installs it where it can (root with apt-get); elsewhere says what to do and fails.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "gw: installing Debian's chromium for the console's browser tests (apt-get)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
cat >&2 <<'MESSAGE'
gw: the console's browser tests need Chromium at /usr/bin/chromium, and it is not there.
    Install it as root (Debian/Ubuntu: sudo apt-get install -y chromium), then run make test again.
MESSAGE
exit 1
