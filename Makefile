# Pushline: `make run` and `make test` work on a fresh Debian machine (they install what is missing).
SWIFT ?= swift
RELEASE_BIN := .build/release

.PHONY: setup build run test install fuzz clean

## setup: install the Debian packages the build, tests and demo need (quiet when all are present)
setup:
	@bash scripts/setup.sh

## build: release build of every target
build: setup
	$(SWIFT) build -c release

## run: build, validate the example payloads, then run `pushline-dev demo` (the pipeline end to end, docs/demo.md)
run: build
	@bash scripts/run.sh $(RELEASE_BIN)

## install: release build, then pushline, pushline-dev and apns-sim into PREFIX/bin and the shared files
## (schemas, example configuration, templates, strings and pipelines, the simulator's dev key, alert
## rules, dashboard) into PREFIX/share/pushline, where the installed binaries find them (docs/operations.md)
PREFIX ?= /usr/local
install: build
	@bash scripts/install.sh $(RELEASE_BIN) "$(PREFIX)"

## test: build and run every test
test: setup
	$(SWIFT) build --build-tests
	# One test at a time: many suites start real servers (Kafka mock clusters, redis-server, apns-sim,
	# nghttpd, h2load) and time-bounded waits; run side by side on two cores they starve each other.
	@bash scripts/test.sh $(SWIFT)

## fuzz: build the fuzz target (intent decoder, templates, the worker's planning and records) with libFuzzer and
## run it for FUZZ_SECONDS (default 60), with inputs up to 2 MB (poison intents are bounded by max_intent_bytes, 256 KiB)
FUZZ_SECONDS ?= 60
fuzz: setup
	PUSHLINE_FUZZ=1 $(SWIFT) build -Xswiftc -sanitize=fuzzer --product EnrichmentFuzz --build-path .build/fuzz
	mkdir -p .build/fuzz/corpus && cp Fuzz/corpus/*/* .build/fuzz/corpus/ && python3 Fuzz/large-seeds.py .build/fuzz/corpus
	# -len_control=0: inputs may be up to -max_len from the start (libFuzzer otherwise grows them slowly,
	# and a few minutes never pass a few KB), so the large seeds are mutated as they are.
	.build/fuzz/debug/EnrichmentFuzz .build/fuzz/corpus -max_total_time=$(FUZZ_SECONDS) -max_len=2097152 -len_control=0 -timeout=10 -rss_limit_mb=4096 \
		-artifact_prefix=.build/fuzz/ -print_final_stats=1

clean:
	rm -rf .build
