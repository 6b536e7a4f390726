# JWTVerify — the two commands the README promises, plus the longer runs.
#   make demo   install what is missing, build in release, verify the bundled sample tokens
#   make test   install what is missing, run the whole test suite: the Swift tests (make test-swift,
#               with Authlib from PyPI in .build/authlib-venv as the authorization server of the
#               access-token tests) and the Spark job's tests (make test-spark: PySpark into .build/spark-venv)
SHELL := /bin/bash
SWIFT ?= swift
SYSTEM_PACKAGES := pkg-config libssl-dev libjansson-dev libmicrohttpd-dev libcurl4-openssl-dev libhiredis-dev
# The real programs the serve tests put in front of it (nginx, Caddy), read its metrics with (promtool) and
# share replay state through (redis-server, for --replay-store).
GATEWAY_PACKAGES := nginx-light caddy prometheus chromium redis-server
JWTVERIFY := .build/release/jwtverify


.PHONY: gateway-deps bench-serve bench-appstore bench-faces report-screenshot
.PHONY: docs test-docs authlib-deps
.PHONY: all deps build release demo test lint format test-swift test-spark package test-package spark-deps spark-binary bench bench-es256 bench-peer-deps bench-instructions bench-spark fuzz fuzz-json asan tsan vectors clean

all: build

# Installs missing system packages (scripts/install-packages: apt-get on Debian/Ubuntu, as root or
# through sudo). Where pkg-config already finds the libraries (macOS, other systems), nothing runs.
INSTALL := scripts/install-packages
deps:
	@if pkg-config --exists 'libcrypto >= 3.0' jansson libmicrohttpd libcurl hiredis 2>/dev/null && \
	    [ -f "$$(pkg-config --variable=includedir jansson)/jansson.h" ] && \
	    [ -f "$$(pkg-config --variable=includedir libmicrohttpd)/microhttpd.h" ] && \
	    [ -f "$$(pkg-config --variable=includedir hiredis)/hiredis.h" ]; then exit 0; fi; \
	$(INSTALL) --why "OpenSSL >= 3, jansson, libmicrohttpd, libcurl and hiredis with their pkg-config files" \
	    $(SYSTEM_PACKAGES)
	@scripts/install-crypto-mb

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product jwtverify

# Verifies the Apple-shaped sample tokens at a fixed time; each line says what it must get ("expect").
demo: release
	@echo "== jwtverify verify on Vectors/samples/apple-identity-tokens.jsonl (evaluated at 2026-01-01T00:00:00Z)"
	@$(JWTVERIFY) verify --jwks Vectors/jwks.json --issuer https://appleid.apple.com \
	    --audience com.example.app --now 2026-01-01T00:00:00Z \
	    Vectors/samples/apple-identity-tokens.jsonl; status=$$?; \
	echo "== exit status $$status (1: some tokens were rejected, as the sample intends)"; \
	[ $$status -le 1 ]

test: lint test-swift test-spark test-docs test-package

# The formatter's rules (.swift-format: 120 columns), checked; `make format` applies them.
lint:
	$(SWIFT) format lint --strict --recursive --parallel Sources Tests

format:
	$(SWIFT) format --in-place --recursive --parallel Sources Tests

# Our Swift targets build without a warning: the suite's builds treat warnings as errors.
STRICT := -Xswiftc -warnings-as-errors

# Both products' documentation (DocC catalogs and doc comments) as static sites in .build/docs,
# built with the toolchain's docc; fails on an unresolved symbol link or an undocumented parameter.
docs: deps
	scripts/docs

# make test builds the documentation too, so a broken link fails the suite.
test-docs: docs

test-swift: deps gateway-deps authlib-deps
	$(SWIFT) test $(STRICT)
	@# Again without the multi-buffer engine: every verdict must be the same on OpenSSL alone.
	JWTVERIFY_CRYPTO_MB=off $(SWIFT) test --skip-build

# nginx, Caddy, promtool and redis-server for the serve tests, Chromium for the html report's (Debian's
# packages; none is started as a service: the tests start redis-server on a free port themselves).
gateway-deps:
	@{ command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; } && command -v caddy >/dev/null && command -v promtool >/dev/null \
	  && command -v chromium >/dev/null && command -v redis-server >/dev/null \
	  || $(INSTALL) --why "for the serve and report tests" $(GATEWAY_PACKAGES)

# The Debian package (.build/package/jwtverify_VERSION_ARCH.deb, lintian-checked), and the package
# installed with apt on a clean Debian 12 root made by mmdebstrap (cached under .build/package).
package: deps
	scripts/package

test-package: deps
	scripts/test-package

# The access-token tests' authorization server (Tests/AuthorizationServer/authlib_server.py):
# Authlib, with joserfc for its keys, in a virtual environment. Without it those tests are skipped.
AUTHLIB_VENV := .build/authlib-venv
AUTHLIB_REQUIREMENTS := authlib==1.9.10 joserfc==1.8.0 cryptography==50.0.2
authlib-deps:
	@if [ "$$(cat $(AUTHLIB_VENV)/.requirements 2>/dev/null)" != "$(AUTHLIB_REQUIREMENTS)" ]; then \
	  rm -rf $(AUTHLIB_VENV) && \
	  { python3 -m venv $(AUTHLIB_VENV) 2>/dev/null || { \
	      $(INSTALL) --why "Python virtual environments" python3-venv && python3 -m venv $(AUTHLIB_VENV); }; } && \
	  echo "Installing $(AUTHLIB_REQUIREMENTS) into $(AUTHLIB_VENV)" && \
	  $(AUTHLIB_VENV)/bin/pip install -q --disable-pip-version-check $(AUTHLIB_REQUIREMENTS) && \
	  echo "$(AUTHLIB_REQUIREMENTS)" > $(AUTHLIB_VENV)/.requirements; \
	fi

# The Spark job (Sources/SparkAudit): PySpark and the tests' signing library in a virtual environment,
# and a Java runtime (installed with apt-get when missing). The tests run the debug build of jwtverify.
SPARK_VENV := .build/spark-venv
SPARK_REQUIREMENTS := pyspark==3.5.3 cryptography==48.0.0
spark-deps: deps
	@command -v java >/dev/null || $(INSTALL) --why "a Java runtime for Spark" default-jre-headless
	@if [ "$$(cat $(SPARK_VENV)/.requirements 2>/dev/null)" != "$(SPARK_REQUIREMENTS)" ]; then \
	  rm -rf $(SPARK_VENV) && \
	  { python3 -m venv $(SPARK_VENV) 2>/dev/null || { \
	      $(INSTALL) --why "Python virtual environments" python3-venv && python3 -m venv $(SPARK_VENV); }; } && \
	  echo "Installing $(SPARK_REQUIREMENTS) into $(SPARK_VENV)" && \
	  $(SPARK_VENV)/bin/pip install -q --disable-pip-version-check $(SPARK_REQUIREMENTS) && \
	  echo "$(SPARK_REQUIREMENTS)" > $(SPARK_VENV)/.requirements; \
	fi

test-spark: spark-deps
	$(SWIFT) build $(STRICT) --product jwtverify
	PATH="$(CURDIR)/$(SPARK_VENV)/bin:$$PATH" PYSPARK_PYTHON="$(CURDIR)/$(SPARK_VENV)/bin/python" \
	JWTVERIFY="$(CURDIR)/.build/debug/jwtverify" $(SPARK_VENV)/bin/python -m unittest discover -s Tests/SparkAudit -v

# A jwtverify to ship to Spark executors: the Swift runtime linked in, so executors need only
# libssl3, libjansson4, libmicrohttpd12, libcurl4 and libhiredis0.14 (linking needs libcurl4-openssl-dev here).
spark-binary: deps
	@$(INSTALL) --why "linking the Swift runtime in" libcurl4-openssl-dev
	$(SWIFT) build -c release --static-swift-stdlib --product jwtverify --build-path .build/static
	@echo "Built .build/static/release/jwtverify"

# Throughput against the raw OpenSSL limit, and the CLI over 1,000,000 tokens (several minutes).
bench: deps bench-peer-deps
	Benchmarks/run.sh
	Benchmarks/es256.sh

# The README's picture of the html report on the bundled samples (Vectors/report.png).
report-screenshot: release gateway-deps
	$(JWTVERIFY) audit --format html --jwks Vectors/jwks.json --issuer https://appleid.apple.com --audience com.example.app \
	    --now 2026-01-01T00:00:00Z Vectors/samples/apple-identity-tokens.jsonl > .build/report.html || [ $$? -le 1 ]
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=.build/chromium-profile \
	    --window-size=1280,1260 --screenshot=Vectors/report.png "file://$(CURDIR)/.build/report.html"

# jwtverify serve under wrk against nginx's own return 204 and the library's 2-thread rate.
bench-serve: deps gateway-deps
	@command -v wrk >/dev/null || $(INSTALL) --why "the load generator" wrk
	PATH="$$PATH:/usr/sbin" Benchmarks/serve.sh

# Every face against the library, the library against the raw limit, and two threads against the
# machine's own gain, in one run (Benchmarks/faces_table.py; medians of 3 runs; about 2 minutes on this VM).
# Python's cryptography signs the App Store and access-token corpora, from .build/bench-venv.
BENCH_VENV := .build/bench-venv
BENCH_REQUIREMENTS := cryptography==48.0.0
bench-faces: release
	@command -v wrk >/dev/null || $(INSTALL) --why "the load generator" wrk
	@if [ "$$(cat $(BENCH_VENV)/.requirements 2>/dev/null)" != "$(BENCH_REQUIREMENTS)" ]; then \
	  rm -rf $(BENCH_VENV) && python3 -m venv $(BENCH_VENV) && \
	  $(BENCH_VENV)/bin/pip install -q --disable-pip-version-check $(BENCH_REQUIREMENTS) && \
	  echo "$(BENCH_REQUIREMENTS)" > $(BENCH_VENV)/.requirements; \
	fi
	BENCH_PYTHON=$(BENCH_VENV)/bin/python python3 Benchmarks/faces_table.py --jwtverify $(JWTVERIFY) $(if $(RUNS),--runs $(RUNS),)

# App Store signed data: jwtverify against Apple's own Python verifier on Apple's real tokens.
bench-appstore: deps
	Benchmarks/appstore.sh

# ES256 only: the fixed-base path against the raw limit and the Rust peer (jsonwebtoken on ring).
bench-es256: deps bench-peer-deps
	Benchmarks/es256.sh

# The Rust peer builds offline from Debian's packaged crates, with Debian's cargo when none is installed.
bench-peer-deps:
	@{ command -v cargo >/dev/null && [ -d /usr/share/cargo/registry/jsonwebtoken-8.2.0 ]; } || { \
	  pkgs="librust-jsonwebtoken-dev"; command -v cargo >/dev/null || pkgs="$$pkgs cargo"; $(INSTALL) --why "the Rust peer" $$pkgs; }

# Per-face cost in instructions under callgrind (deterministic, where wall-clock rates on a shared
# VM drift by 15%): each face's instructions per token against the raw OpenSSL limit's own.
bench-instructions: deps
	@command -v valgrind >/dev/null || $(INSTALL) --why "callgrind" valgrind
	$(SWIFT) build -c release
	Benchmarks/face_instructions.sh

# The whole suite under AddressSanitizer. Leak detection is off: FoundationNetworking/libcurl leak
# a few hundred bytes per URLSession, which would fail every CLI run that fetches keys.
asan: deps gateway-deps
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --sanitize=address --build-path .build/asan

# The concurrency, key-cache, fixed-base and HTTP suites under ThreadSanitizer. Not the 16-thread stress test:
# TSan cannot see Synchronization.Mutex's futex-based exclusion on Linux and reports false races
# under contention (16 threads x 20,000 increments of a Mutex<Int> report a race, total exact).
# So the 16-thread rotation test is skipped here: in about one run of three it reported the key
# cache's Mutex-guarded state as raced, on builds before and after any change of its code.
tsan: deps
	$(SWIFT) test --sanitize=thread --build-path .build/tsan \
	    --filter "ConcurrencyTests|BatchRunnerTests|KeyCacheStateTests|FixedBaseP256Tests|RSAMontgomeryTests|BatchVerificationTests|MultiBufferEngineTests|MultiBufferKeptConstantsTests|CLISignatureEngineTests|JWTVerifyTests.RemoteKeySetTests|HTTPKeySetTests|CLIRemoteKeySetTests" \
	    --skip "RemoteKeySetTests/concurrentRotation"

# The Spark job on local[2] against one jwtverify audit process over the same generated logs; then
# on local-cluster[2,1,1024] over 750,000 and 3,000,000 distinct tokens (peak memory, bytes collected).
bench-spark: spark-deps release
	PATH="$(CURDIR)/$(SPARK_VENV)/bin:$$PATH" PYSPARK_PYTHON="$(CURDIR)/$(SPARK_VENV)/bin/python" \
	$(SPARK_VENV)/bin/python Benchmarks/spark_throughput.py --jwtverify $(JWTVERIFY)
	PATH="$(CURDIR)/$(SPARK_VENV)/bin:$$PATH" PYSPARK_PYTHON="$(CURDIR)/$(SPARK_VENV)/bin/python" \
	$(SPARK_VENV)/bin/python Benchmarks/spark_scale.py --jwtverify $(JWTVERIFY)

# libFuzzer + AddressSanitizer: make fuzz TARGET=json|token|jwks|input|mutation|cache|es256|rsa|mb|http|transport|serve|notification|dpop|htu|discovery|storeapi|appstorebatch
# FUZZ_SECONDS=600.
# Seeds: the project's sample tokens and the shared attack corpus; crashes land in .fuzz/TARGET/.
TARGET ?= json
FUZZ_SECONDS ?= 600
fuzz: deps
	$(SWIFT) build -c release --build-path .build/fuzz --product jwtfuzz \
	    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xcc -fsanitize=fuzzer-no-link,address
	mkdir -p .fuzz/$(TARGET)/corpus .fuzz/$(TARGET)/seeds
	python3 Tests/Fuzz/seeds.py $(TARGET) .fuzz/$(TARGET)/seeds
	cd .fuzz/$(TARGET) && SWIFT_BACKTRACE=enable=no JWTFUZZ_TARGET=$(TARGET) ../../.build/fuzz/release/jwtfuzz -max_total_time=$(FUZZ_SECONDS) \
	    -max_len=$$( [ $(TARGET) = jwks ] && echo 65536 || echo 8192 ) -print_final_stats=1 corpus seeds

fuzz-json:
	$(MAKE) fuzz TARGET=json

# Regenerates Vectors/ (needs Python 'cryptography'); keys are kept unless NEW_KEYS=1 (the App Store
# chain is new each time).
vectors:
	python3 Vectors/generate.py $(if $(NEW_KEYS),--new-keys,)
	python3 Vectors/generate_appstore.py

clean:
	rm -rf .build
