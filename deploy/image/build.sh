#!/usr/bin/env bash
# Builds gw's image with BuildKit, labelled with gw's version and this checkout's source and revision.
#   deploy/image/build.sh TAG [docker build options...]
# BASE_IMAGE overrides the Dockerfile's base; NODE_EXTRA_CA_CERTS, when it names a file, is handed
# to the build as the secret extra-ca (the npm installs trust it; the image does not keep it).
set -euo pipefail
cd "$(dirname "$0")/../.."
tag="${1:?usage: deploy/image/build.sh TAG [docker build options...]}"
shift

# A client that builds with BuildKit: buildx where installed, else a Docker CLI older than 23
# (its BuildKit is built in and turned on by DOCKER_BUILDKIT=1; Debian bookworm's docker.io is one).
client=""
for candidate in docker /usr/bin/docker; do
  command -v "$candidate" >/dev/null || continue
  if "$candidate" buildx version >/dev/null 2>&1; then client="$candidate"; break; fi
  major="$("$candidate" version --format '{{.Client.Version}}' 2>/dev/null | cut -d. -f1 || true)"
  if [ -n "$major" ] && [ "$major" -lt 23 ] 2>/dev/null; then client="$candidate"; break; fi
done
[ -n "$client" ] || { echo "build: no Docker client with BuildKit (install docker-buildx, or Debian's docker.io)" >&2; exit 1; }

version="$(node -p "require('./package.json').version")"
source="${GW_SOURCE:-$(git remote get-url origin 2>/dev/null || echo "file://$PWD")}"
revision="$(git rev-parse HEAD)"
args=(--build-arg "GW_VERSION=$version" --build-arg "GW_SOURCE=$source" --build-arg "GW_REVISION=$revision")
[ -z "${BASE_IMAGE:-}" ] || args+=(--build-arg "BASE_IMAGE=$BASE_IMAGE")
[ ! -s "${NODE_EXTRA_CA_CERTS:-}" ] || args+=(--secret "id=extra-ca,src=$NODE_EXTRA_CA_CERTS")
echo "build: $tag (gw $version, $revision) with $client"
DOCKER_BUILDKIT=1 "$client" build "${args[@]}" --tag "$tag" "$@" .
