#!/usr/bin/env bash
# Makes sure a Docker engine answers, for `make image-test` and the compose check: installs Debian's
# docker.io, docker-compose and debootstrap when missing (as root), and starts dockerd when none
# runs, the way this kind of machine allows (no bridge, no iptables: containers use the host's
# network; overlay2 storage where the kernel mounts overlays, else vfs, which copies the whole
# image for every container). A daemon it starts keeps running after it, its log in $GW_DOCKERD_LOG.
set -euo pipefail
missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v docker-compose >/dev/null || missing+=(docker-compose)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "docker-daemon: missing ${missing[*]}; install them (apt-get install -y ${missing[*]}) as root" >&2
    exit 1
  fi
  echo "docker-daemon: installing Debian's ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
docker info >/dev/null 2>&1 && exit 0
[ "$(id -u)" = 0 ] || { echo "docker-daemon: no Docker engine answers, and only root may start one here" >&2; exit 1; }
log="${GW_DOCKERD_LOG:-/tmp/gw-dockerd.log}"
probe="$(mktemp -d)"
mkdir "$probe/lower" "$probe/upper" "$probe/work" "$probe/merged"
driver=vfs
if mount -t overlay overlay -o "lowerdir=$probe/lower,upperdir=$probe/upper,workdir=$probe/work" "$probe/merged" 2>/dev/null; then
  umount "$probe/merged"
  driver=overlay2
fi
rm -rf "$probe"
echo "docker-daemon: starting dockerd, $driver storage (log: $log)"
nohup dockerd --storage-driver="$driver" --iptables=false --bridge=none >"$log" 2>&1 &
for _ in $(seq 1 60); do
  docker info >/dev/null 2>&1 && exit 0
  sleep 1
done
echo "docker-daemon: dockerd did not answer within 60 s; its log:" >&2
tail -n 30 "$log" >&2
exit 1
