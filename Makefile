# keeptrack: the two commands of the README are `make demo` and `make test`.
SWIFT ?= swift
BIN := .build/release/keeptrack

.PHONY: setup build demo test bench clean

setup:
	@scripts/setup.sh

build: setup
	$(SWIFT) build -c release

demo: build
	$(BIN) demo

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

bench: build
	bench/run.sh

clean:
	rm -rf .build
