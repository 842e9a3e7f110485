# gw's container image (docs/deployment.md). Needs BuildKit (docker buildx, or DOCKER_BUILDKIT=1 on
# Docker 18.09 and later) for its cache mounts and its optional build secret:
#
#   docker build -t gw .
#   docker build --secret id=extra-ca,src=proxy-ca.pem -t gw .   # a TLS-inspecting proxy's CA
#
# The extra CA is read by the npm installs of the two build stages only; the final image never holds it.
# No `# syntax=` line: the Dockerfile frontend built into the engine is enough, and nothing is pulled.

# The Node that runs gw (Node 22 and 24 are supported, README). Any image with node, npm and
# Debian's apt-get will do; `make image-test` passes one made with debootstrap.
ARG BASE_IMAGE=node:24-slim

# ---- deps: production dependencies, native modules (better-sqlite3, hnswlib-node) compiled once.
FROM ${BASE_IMAGE} AS deps
WORKDIR /src
# A compiler for the native modules, used when no prebuilt binary can be fetched.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Node's own headers when the base has them (official images and Debian's libnode-dev do), so
# node-gyp needs no download; the CA secret only when given.
RUN --mount=type=secret,id=extra-ca --mount=type=cache,target=/root/.npm \
    set -e; \
    if [ -s /run/secrets/extra-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra-ca; fi; \
    nodedir="$(node -p 'require("path").resolve(process.execPath, "../..")')"; \
    if [ -f "$nodedir/include/node/node.h" ]; then export npm_config_nodedir="$nodedir"; fi; \
    npm ci --omit=dev --no-audit --no-fund

# ---- build: the dev dependencies on top (the native modules stay built), then dist/ and the console.
FROM deps AS build
COPY web/package.json web/package-lock.json web/
RUN --mount=type=secret,id=extra-ca --mount=type=cache,target=/root/.npm \
    set -e; \
    if [ -s /run/secrets/extra-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra-ca; fi; \
    npm install --no-save --no-audit --no-fund; \
    cd web && npm ci --no-audit --no-fund
COPY . .
RUN node_modules/.bin/tsc -p tsconfig.build.json \
 && cd web && node_modules/.bin/tsc --noEmit -p tsconfig.json && node_modules/.bin/vite build --logLevel warn

# ---- the image: production dependencies, dist/, the bundled spec and the built console.
FROM ${BASE_IMAGE}
ARG GW_VERSION=unknown
ARG GW_SOURCE=unknown
ARG GW_REVISION=unknown
LABEL org.opencontainers.image.title="gw" \
      org.opencontainers.image.description="gw: an AI gateway with its own control plane" \
      org.opencontainers.image.version="${GW_VERSION}" \
      org.opencontainers.image.source="${GW_SOURCE}" \
      org.opencontainers.image.revision="${GW_REVISION}"
# A user of its own, owning only /data (the SQLite file and the generated encryption key).
RUN groupadd --system --gid 10001 gw \
 && useradd --system --uid 10001 --gid gw --home-dir /data --no-create-home --shell /usr/sbin/nologin gw \
 && mkdir /data && chown gw:gw /data
WORKDIR /app
ENV NODE_ENV=production GW_DATA_DIR=/data GW_HOST=0.0.0.0 GW_PORT=8787
COPY package.json ./
COPY --from=deps /src/node_modules node_modules
COPY --from=build /src/dist dist
COPY --from=build /src/generated/openapi.json generated/openapi.json
COPY --from=build /src/web/dist web/dist
USER 10001:10001
VOLUME /data
EXPOSE 8787
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.GW_PORT || 8787) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 (no shell in between), so SIGTERM reaches gw's drain (docs/operations.md).
ENTRYPOINT ["node", "--max-semi-space-size=32", "dist/server/cli.js"]
CMD ["start"]
