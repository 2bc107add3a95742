# keeptrack: the two commands of the README are `make demo` and `make test`.
SWIFT ?= swift
BIN := .build/release/keeptrack

FUZZ_SECONDS ?= 60
PREFIX ?= /usr/local

.PHONY: setup build demo test bench docs fuzz fuzz-smoke install uninstall clean

setup:
	@scripts/setup.sh

build: setup
	$(SWIFT) build -c release --static-swift-stdlib
	@scripts/build-people-detector.sh .build/release

demo: build
	$(BIN) demo

# The fuzz harness (swiftc -O -wmo with ASan, ~190 CPU-s) is built at nice 19 beside the test build and the
# tests, on the share of the cores they leave idle; its replay and smoke run after the tests, before the
# summary, so the summary is the last thing printed. Every test runs in its own process, TEST_WORKERS at a
# time; InstallTests hides the checkout's libraries, so it runs alone afterwards. make test makes no release
# build (issue 14: a third of a fresh clone's run): InstallTests installs the test build's executables
# with scripts/install.sh, the script `make install` runs on the release build. The test build keeps its
# index store: on Linux, SwiftPM finds the XCTest methods through it (--disable-index-store fails the build).
TEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_RESULTS := .build/test-results.xml
FUZZ_BUILD_LOG := .build/fuzz-harness-build.log
FUZZ_BUILD_STATUS := .build/fuzz-harness-build.status

test: setup
	@mkdir -p .build && rm -f $(FUZZ_BUILD_STATUS)
	@(nice -n 19 Fuzz/run.sh build > $(FUZZ_BUILD_LOG) 2>&1; echo $$? > $(FUZZ_BUILD_STATUS)) &
	$(SWIFT) build --build-tests
	@scripts/build-people-detector.sh .build/debug
	$(SWIFT) test --skip-build --disable-swift-testing --parallel --num-workers $(TEST_WORKERS) --skip InstallTests --xunit-output $(TEST_RESULTS)
	$(SWIFT) test --skip-build --disable-swift-testing --filter InstallTests
	@echo "fuzz: waiting for the harness built beside the tests"; while [ ! -s $(FUZZ_BUILD_STATUS) ]; do sleep 1; done; \
		cat $(FUZZ_BUILD_LOG); [ "$$(cat $(FUZZ_BUILD_STATUS))" = 0 ] || { echo "fuzz: the harness did not build"; exit 1; }
	Fuzz/run.sh replay
	FUZZ_JOBS=$(FUZZ_SMOKE_JOBS) Fuzz/run.sh $(FUZZ_SMOKE_SECONDS)
	@scripts/test-summary.sh $(TEST_RESULTS)

bench: build
	bench/run.sh

# The generated head of each docs/commands/NAME.md (from the command table, as --help and the man page);
# the hand-written rest of each page is kept. DocsTests fails when a page is out of date.
docs: setup
	$(SWIFT) build --product keeptrack-media
	.build/debug/keeptrack-media --update-docs docs/commands

# libFuzzer over the parser, track model, inspect, lint, the remux planner and the edits (Fuzz/run.sh;
# FUZZ_ASAN=0 for long runs, FUZZ_JOBS=N processes).
fuzz: setup
	Fuzz/run.sh $(FUZZ_SECONDS)

# The harness is built by swiftc from the sources (Fuzz/run.sh), not from the release build. The smoke
# runs FUZZ_SMOKE_JOBS processes for FUZZ_SMOKE_SECONDS: 2 x 30 s makes as many executions as the one
# 60 s process it replaces, in half the wall time on 2 cores.
FUZZ_SMOKE_SECONDS ?= 30
FUZZ_SMOKE_JOBS ?= 2
fuzz-smoke: setup
	Fuzz/run.sh replay
	FUZZ_JOBS=$(FUZZ_SMOKE_JOBS) Fuzz/run.sh $(FUZZ_SMOKE_SECONDS)

# Installs keeptrack, keeptrack-media, libfacedetection, the man page and completions under PREFIX.
install: build
	scripts/install.sh $(PREFIX)

uninstall:
	scripts/install.sh --uninstall $(PREFIX)

clean:
	rm -rf .build
