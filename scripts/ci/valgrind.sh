#!/usr/bin/env bash
# The CPU budget step counts instructions with valgrind's callgrind (Debian's valgrind package).
# Installs it where it can (root with apt-get); elsewhere says what to do and fails.
set -euo pipefail
command -v valgrind >/dev/null && command -v callgrind_control >/dev/null && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "gw: installing Debian's valgrind for the CPU budget (apt-get)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
  exit 0
fi
echo "gw: the CPU budget needs valgrind (Debian/Ubuntu: sudo apt-get install -y valgrind)" >&2
exit 1
