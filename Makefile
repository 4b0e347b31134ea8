# Pushline: `make run` and `make test` work on a fresh Debian machine (they install what is missing).
SWIFT ?= swift
RELEASE_BIN := .build/release

.PHONY: setup build run test clean

## setup: install the Debian packages the build, tests and demo need (quiet when all are present)
setup:
	@bash scripts/setup.sh

## build: release build of every target
build: setup
	$(SWIFT) build -c release

## run: build, then run Pushline's main job (today: validate the example payloads, print a dev token)
run: build
	@bash scripts/run.sh $(RELEASE_BIN)/pushline

## test: build and run every test
test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel

clean:
	rm -rf .build
