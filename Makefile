# gw: `make run` and `make test` install what is missing first.
SHELL := /bin/bash
BIN := node_modules/.bin
TSX := node --import tsx
TEST_FILES = $(shell find test -name '*.test.ts' | sort)
TEST_CONCURRENCY ?= 2
# V8's young generation sized for a gateway's allocation rate: half as many scavenges per request,
# each about as cheap, since what survives one is mostly the requests in flight (README, Performance).
NODE_FLAGS := --max-semi-space-size=32

.PHONY: install generate check typecheck lint test fuzz run build console bench bench-logs bench-instructions bench-instructions-check bench-console screenshots clean \
	chromium pack npx-test image image-test test-node bench-node sbom

VERSION := $(shell node -p "require('./package.json').version")
# The suites run on a second Node by `make test-node` (CI: Node 24): the foundation, the gateway
# path and the providers, where the runtime matters most (HTTP, streams, undici, native modules);
# `NODE_SUITES="mcp console" make test-node` runs others.
NODE_SUITES ?= foundation gateway providers

# Prints what it does: the native modules (better-sqlite3, hnswlib-node) compile when no prebuilt
# binary can be fetched, which is most of the first install's few minutes.
node_modules/.installed: package.json package-lock.json
	@echo "gw: installing dependencies (npm ci); better-sqlite3 and hnswlib-node may compile from source: a few minutes the first time"
	npm ci --no-audit --no-fund --foreground-scripts
	@echo "gw: dependencies installed"
	@touch $@

# The console (web/) has its own packages, installed into web/node_modules only.
web/node_modules/.installed: web/package.json web/package-lock.json
	@echo "gw: installing the console's dependencies (npm ci in web/)"
	cd web && npm ci --no-audit --no-fund
	@echo "gw: console dependencies installed"
	@touch $@

install: node_modules/.installed web/node_modules/.installed

generate: install
	$(TSX) scripts/generate.ts

typecheck: install
	$(BIN)/tsc --noEmit -p tsconfig.json
	cd web && node_modules/.bin/tsc --noEmit -p tsconfig.json

lint: install
	$(BIN)/eslint .

# Types, lint (with the rooms' import direction), no unused runtime dependency, generated/ matching
# the spec (CI fails on a stale generated/), and no handler stub left.
check: typecheck lint generate
	$(BIN)/knip --dependencies
	@if [ -n "$$(git status --porcelain -- generated)" ]; then \
		echo "generated/ is stale: run make generate and commit it"; git status --porcelain -- generated; exit 1; fi
	@$(TSX) scripts/handler-stubs.ts --check

# --test-force-exit: a test file ends when its tests have (the MCP SDK client can leave a retry timer
# behind after the last test; see the closing note of 2026-11-24).
# The console's component tests (Vitest), then every suite, the console's browser tests among them
# (test/console: headless /usr/bin/chromium against the console built into web/dist).
test: install console chromium
	cd web && node_modules/.bin/vitest run
	$(TSX) --test --test-force-exit --test-concurrency=$(TEST_CONCURRENCY) --test-timeout=600000 $(TEST_FILES)

# The spec-driven fuzz test alone; GW_FUZZ_URL and GW_FUZZ_API_KEY point it at a running gw (docs/contract-testing.md).
fuzz: install
	$(TSX) --test test/foundation/spec-fuzz.test.ts

# dist/ and web/dist are rebuilt only when one of their inputs changed (the folders are inputs too,
# so an added or deleted file counts). The server reads the spec from generated/ at run time.
DIST_INPUTS = $(shell find core server handlers gateway jobs store generated scripts/bench) scripts/backfill-rollups.ts tsconfig.json tsconfig.build.json
CONSOLE_INPUTS = $(shell find web/src web/build) web/index.html web/tsconfig.json web/vite.config.ts generated/openapi.json

build: install console dist/.built

# The stamp is written only once tsc succeeded (rm -rf dist takes the old one with it).
dist/.built: node_modules/.installed $(DIST_INPUTS)
	@echo "gw: building (tsc) into dist/"
	rm -rf dist && $(BIN)/tsc -p tsconfig.build.json
	@touch $@

# The web console: type-checked, then built by Vite into web/dist, which gw serves at /console.
console: install web/dist/index.html

# A failed build leaves index.html missing or older than its inputs: the next make builds again.
web/dist/index.html: web/node_modules/.installed $(CONSOLE_INPUTS)
	@echo "gw: building the console (web/) into web/dist/"
	cd web && node_modules/.bin/tsc --noEmit -p tsconfig.json && node_modules/.bin/vite build --logLevel warn
	@touch $@

run: build
	node $(NODE_FLAGS) dist/server/main.js

bench: build
	GW_NODE_FLAGS='$(NODE_FLAGS)' $(TSX) scripts/bench.ts

# The same on another Node (NODE_MAJOR, default 24: the image's), every process of the bench on it.
bench-node: build
	GW_NODE_FLAGS='$(NODE_FLAGS)' scripts/ci/bench-on-node.sh $(NODE_MAJOR)

# The request log on Postgres and SQLite: gw's full chat rate and POST /v1/logs ingestion against a
# plain COPY of the same rows (scripts/bench-logs.ts; BENCH_LOGS_SECONDS=60 for the target run).
bench-logs: build
	GW_NODE_FLAGS='$(NODE_FLAGS)' $(TSX) scripts/bench-logs.ts

# The console's time to interactive per page over 100,000 log rows (Chromium, a gw in this process).
bench-console: install console chromium
	$(TSX) scripts/time-console.ts

# The console's screenshots in docs/images/console-*.png (1280x800), from a gw with demo data.
screenshots: install console chromium
	$(TSX) scripts/console-screenshots.ts

# Instructions per request under valgrind's callgrind: repeatable where wall-clock figures are not (minutes).
bench-instructions: build
	GW_NODE_FLAGS='$(NODE_FLAGS)' $(TSX) scripts/bench-instructions.ts

# The CPU budget (a CI step, docs/performance.md): each hot operation's instructions per call against scripts/instruction-budget.json
# (fails over budget by more than 3%, or on a raised budget without a new reason); installs valgrind where it can.
bench-instructions-check: build
	@scripts/ci/valgrind.sh
	GW_NODE_FLAGS='$(NODE_FLAGS)' $(TSX) scripts/bench-instructions.ts --check

# Debian's Chromium for the console's browser tests: installed where it can be (root), else a clear message.
chromium:
	@scripts/ci/chromium.sh

# The npm package in .pack/: dist/, the bundled spec and the console prebuilt.
pack: build
	rm -rf .pack && mkdir .pack
	npm pack --pack-destination .pack >/dev/null
	@echo "gw: .pack/gw-$(VERSION).tgz (npm install it, then: npx gw start)"

# The packed tarball installed into an empty folder with Node 22 and started with npx (a few minutes:
# the native modules compile for that Node).
npx-test: pack
	GW_NPX_TARBALL=$(CURDIR)/.pack/gw-$(VERSION).tgz GW_NPX_NODE_DIR=$$(scripts/ci/node-binary.sh 22) \
		$(TSX) --test --test-force-exit --test-timeout=1200000 test/deploy/npx.e2e.ts

# The container image, with BuildKit (BASE_IMAGE=... to build on another Node image).
IMAGE ?= gw:$(VERSION)
image:
	deploy/image/build.sh $(IMAGE)

# CI: the image built on a Node base made here with debootstrap (no image registry is reachable;
# cached in ~/.cache/gw-image), then run on SQLite and as compose.yaml's gw on Postgres and Redis.
image-test: install
	scripts/ci/docker-daemon.sh
	GW_BASE_IMAGE=gw-base:trixie-node deploy/image/base-image.sh
	BASE_IMAGE=gw-base:trixie-node deploy/image/build.sh gw:image-test --network host --progress plain
	GW_IMAGE=gw:image-test GW_DOCKER=$$(command -v docker) $(TSX) --test --test-force-exit test/deploy/image.e2e.ts
	docker image prune --force >/dev/null

# NODE_SUITES on another Node (NODE_MAJOR, default 24), from a copy of the tree whose native
# modules are rebuilt for it (cached per lock file in ~/.cache/gw-node).
NODE_MAJOR ?= 24
test-node: install console chromium
	scripts/ci/test-on-node.sh $(NODE_MAJOR) $(NODE_SUITES)

# The software bill of materials (CycloneDX JSON) of the production dependencies: sbom/gw.cdx.json.
# Its generator has a lock file of its own (scripts/sbom), without its optional XML validator,
# a native module whose install would try to download a binary.
scripts/sbom/node_modules/.installed: scripts/sbom/package.json scripts/sbom/package-lock.json
	cd scripts/sbom && npm ci --omit=optional --no-audit --no-fund
	@touch $@

sbom: install scripts/sbom/node_modules/.installed
	mkdir -p sbom
	scripts/sbom/node_modules/.bin/cyclonedx-npm --omit dev --output-reproducible --output-format JSON --output-file sbom/gw.cdx.json
	@echo "gw: sbom/gw.cdx.json"

clean:
	rm -rf dist data web/dist test-output .pack sbom
