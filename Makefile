# reviewbot - the two quick-start commands, and a few helpers.
#
#   make demo   install what the build needs, build, review an example
#               series on the embedded defaults and show the reply
#   make test   install what the build and the tests need (the servers
#               the tests start), build with ASan+UBSan and -Werror, run
#               every test through ctest, then list the skipped tests and
#               why each was skipped
#
# Builds go to build/ (release) and build-test/ (sanitizers, fuzzers).
# The tests read the large shared data (the real-mail corpus, the seed
# series) from ../shared beside this directory, or RB_SHARED=DIR; the
# parity tests read the kernel tree of scripts/setup-linux-tree.sh, or
# RB_LINUX_TREE=DIR. Tests that need what is missing are skipped.

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CTEST_ARGS ?=
RB_SHARED ?= $(abspath ../shared)

.PHONY: all deps deps-build deps-test build demo test test-build clean format

all: build

deps: deps-test

deps-build:
	@scripts/install-deps.sh build

deps-test:
	@scripts/install-deps.sh all

build: deps-build
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build -j$(JOBS)

demo: build
	@scripts/demo.sh build/bot/reviewbot

test-build: deps-test
	cmake -S . -B build-test -DCMAKE_C_COMPILER=clang \
		-DCMAKE_BUILD_TYPE=Debug -DRB_WERROR=ON -DRB_SANITIZE=ON \
		-DRB_FUZZ=ON -DRB_SHARED_DIR="$(RB_SHARED)" >/dev/null
	cmake --build build-test -j$(JOBS)

test: test-build
	@cd build-test && rm -f junit.xml && \
	{ ctest --output-on-failure -j$(JOBS) \
		--output-junit "$(CURDIR)/build-test/junit.xml" $(CTEST_ARGS); \
	  rc=$$?; python3 ../scripts/test-summary.py junit.xml; exit $$rc; }

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-test demo
