# Nexus: nexusctl (root package) and nexusd (Server/).
# `make demo` runs the main job on the embedded SQLite default; `make test` runs every test.

SWIFT ?= swift
PREFIX ?= /usr/local
SERVER := --package-path Server
# The folder `make dist` writes its tarball and Debian package to.
DIST ?= dist
# What `--version` reports with the version (Package.swift hands it to CNexusBuild).
NEXUS_COMMIT ?= $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)

.PHONY: all build openssl test test-deps test-nginx failover-test failover-bench tls-audit demo bench fuzz fuzz-api soak install completions docs dist dist-test clean

all: build

# nexusctl speaks HTTPS through the system's OpenSSL (Sources/COpenSSL, which loads libssl3
# at run time): its headers come from Debian's libssl-dev. As root under CI they are
# installed the way .ci/run installs PostgreSQL; otherwise make says what to install.
openssl:
	@if ! test -f /usr/include/openssl/ssl.h && ! pkg-config --exists openssl 2>/dev/null; then \
		if [ "$$(id -u)" = 0 ] && [ -n "$$CI" ]; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libssl-dev >/dev/null; \
		else \
			echo "nexusctl needs OpenSSL's headers: install Debian's libssl-dev (sudo apt-get install libssl-dev), then run make again." >&2; \
			exit 1; \
		fi; \
	fi

build: openssl
	$(SWIFT) build
	$(SWIFT) build $(SERVER) --product nexusd

# Every test: nexusctl's unit and integration tests (which drive the real binaries) on
# the embedded SQLite default, nexusd's in-process tests, then the same integration
# suite (and the replica tests) and nexusd's in-process tests again on a throwaway
# PostgreSQL cluster (one test at a time there: each has its own database, and on a
# small host parallel ones wait past the 5 s database deadline).
# First the programs it needs beyond Swift (Tests/scripts/test-deps.sh): installed when
# running as root with apt-get, else named with the command to run.
test: test-deps build
	$(SWIFT) test
	$(SWIFT) test $(SERVER)
	bash Tests/scripts/with-postgres.sh $(SWIFT) test --skip-build --filter IntegrationTests
	bash Tests/scripts/with-postgres.sh $(SWIFT) test $(SERVER) --skip-build --no-parallel
	$(MAKE) test-nginx

# docs/deploy.md's nginx example for real: Debian's nginx (installed when missing, as root)
# terminating TLS with a throwaway CA in front of two replicas on PostgreSQL; nexusctl over
# https://, tail -f whole while a replica is killed, then a 20 MiB file up and down through it
# (an upload chunk is 16 MiB: the example's body limit must let it through). About 30 s.
test-nginx: build
	bash Tests/scripts/with-postgres.sh bash Tests/scripts/nginx-replicas.sh

test-deps:
	bash Tests/scripts/test-deps.sh

# PostgreSQL failover with nothing acknowledged lost: a pg_auto_failover monitor,
# primary and synchronous standby on loopback (Debian's postgresql-NN-auto-failover, installed
# when missing as root), two replicas on the multi-host URL, 5,000 sends through the outbox
# while two tail -f watch, the primary's host killed half-way and brought back as the standby.
failover-test: build
	bash Tests/scripts/failover.sh

# Synchronous against asynchronous commit on the same primary + standby, and failover time
# (kill -9 to the first acknowledged send, median of 3); release builds. docs/benchmarks.md.
failover-bench:
	bash Tests/scripts/failover-bench.sh

demo: build
	bash Tests/scripts/demo.sh

# Speed and memory figures, from release builds; prints a table.
bench:
	bash Tests/scripts/bench.sh

# libFuzzer targets for the JSON-lines reader and the argument parser, 60 s each
# (FUZZ_SECONDS=N to change); see Tests/Fuzz/README.md.
fuzz:
	bash Tests/Fuzz/run.sh

# schemathesis (installed from PyPI into .build-fuzz-api/ when missing) against a live
# nexusd, from docs/openapi.yaml, with and without a token; a few minutes.
fuzz-api:
	$(SWIFT) build $(SERVER) --product nexusd
	bash Tests/scripts/fuzz-api.sh

# testssl.sh (Debian's package, installed when missing as root) against nexusd's own TLS
# listener on loopback; a few minutes. docs/tls.md records the findings.
tls-audit:
	$(SWIFT) build $(SERVER) --product nexusd
	bash Tests/scripts/tls-audit.sh

# 200 tail -f clients, steady senders, nexusd restarted every minute, for 10 minutes
# (SOAK_SECONDS=N to change); prints the figures (docs/benchmarks.md).
soak:
	bash Tests/scripts/soak.sh

# Generated from the command table; tests fail when the committed copies fall behind.
completions:
	$(SWIFT) build
	for shell in bash zsh fish; do .build/debug/nexusctl completion $$shell > completions/nexusctl.$$shell; done

# nexusctl's pages come from its command table; nexusd(1) from nexusd's own argument
# declarations (the ones `nexusd --help` shows).
docs:
	$(SWIFT) build
	.build/debug/nexusctl __generate-docs docs
	$(SWIFT) build $(SERVER) --product nexusd
	Server/.build/debug/nexusd --generate-manual > docs/nexusd.1

# Release binaries with the Swift runtime linked in (--static-swift-stdlib: they run where no
# toolchain is), checked with ldd, then $(DIST)/nexus-VERSION-linux-ARCH.tar.gz (binaries, man
# pages, completions, systemd unit) and $(DIST)/nexus_VERSION_ARCH.deb (dpkg-deb alone; Depends
# from the binaries' symbols). Not part of `make test`: a first run takes tens of minutes on
# 2 cores (nexusd's release build), later ones a minute or two (relinks).
dist: openssl
	NEXUS_COMMIT=$(NEXUS_COMMIT) DIST=$(DIST) bash packaging/make-dist.sh

# make dist's artifacts with the Swift toolchain hidden (a private mount namespace), and the
# .deb installed with dpkg -i into a throwaway overlay of the host's root; needs root.
# About a minute after `make dist`.
dist-test: dist
	DIST=$(DIST) bash Tests/scripts/dist-test.sh

install: export NEXUS_COMMIT := $(NEXUS_COMMIT)
install:
	$(SWIFT) build -c release
	$(SWIFT) build $(SERVER) -c release --product nexusd
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 .build/release/nexusctl Server/.build/release/nexusd $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 docs/nexusctl.1 $(DESTDIR)$(PREFIX)/share/man/man1/nexusctl.1
	install -m 644 docs/nexusd.1 $(DESTDIR)$(PREFIX)/share/man/man1/nexusd.1
	install -m 644 completions/nexusctl.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/nexusctl
	install -m 644 completions/nexusctl.zsh $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_nexusctl
	install -m 644 completions/nexusctl.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/nexusctl.fish

clean:
	rm -rf .build Server/.build
