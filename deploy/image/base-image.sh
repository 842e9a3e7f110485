#!/usr/bin/env bash
# Makes a Node base image without any image registry: Debian trixie (debootstrap, minbase) with
# Debian's nodejs, npm and Node's headers (so native modules compile against them), imported into
# Docker as $GW_BASE_IMAGE. Used by `make image-test` where no registry is reachable; anyone who can
# pull the official node:*-slim image needs none of this.
#
# The root file system is cached as a tarball in $GW_IMAGE_CACHE (default ~/.cache/gw-image), so a
# later run on the same machine only imports it (seconds) instead of bootstrapping (minutes).
set -euo pipefail
image="${GW_BASE_IMAGE:-gw-base:trixie-node}"
cache="${GW_IMAGE_CACHE:-$HOME/.cache/gw-image}"
suite=trixie
tarball="$cache/base-$suite-node.tar"

if docker image inspect "$image" >/dev/null 2>&1; then
  echo "base-image: $image is there"
  exit 0
fi

if [ ! -s "$tarball" ]; then
  command -v debootstrap >/dev/null || { echo "base-image: debootstrap is missing (apt-get install -y debootstrap)" >&2; exit 1; }
  # The machine's own Debian mirror (deb822 sources first, then sources.list), else Debian's default.
  mirror="$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 || true)"
  [ -n "$mirror" ] || mirror="$(sed -n 's/^deb[[:space:]]\+\([^[:space:]]*\/debian\)[[:space:]].*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n1 || true)"
  mirror="${mirror:-http://deb.debian.org/debian}"
  root="$(mktemp -d)"
  chmod 755 "$root"   # the image's / (mktemp makes it 0700: only root could enter)
  trap 'umount "$root/proc" 2>/dev/null || true; rm -rf "$root"' EXIT
  echo "base-image: debootstrap $suite from $mirror (a few minutes, once per machine)"
  debootstrap --variant=minbase "$suite" "$root" "$mirror" >/dev/null
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  mount -t proc proc "$root/proc"
  chroot "$root" apt-get update -qq
  # nodejs + npm as the official image has them; libnode-dev: Node's headers, for node-gyp offline.
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    nodejs npm libnode-dev ca-certificates >/dev/null
  chroot "$root" apt-get clean
  umount "$root/proc"
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root/etc/resolv.conf"
  mkdir -p "$cache"
  tar -C "$root" -cf "$tarball.partial" .
  mv "$tarball.partial" "$tarball"
  rm -rf "$root"
  trap - EXIT
fi

echo "base-image: importing $tarball as $image"
docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  "$tarball" "$image" >/dev/null
