# reviewbot - the two quick-start commands, and a few helpers.
#
#   make demo   install what is missing, build, review an example series
#               on the embedded defaults and show the reply
#   make test   install what is missing, build with ASan+UBSan and
#               -Werror, and run every test through ctest
#
# Builds go to build/ (release) and build-test/ (sanitizers, fuzzers).

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CTEST_ARGS ?=

.PHONY: all deps build demo test test-build clean format

all: build

deps:
	@scripts/install-deps.sh all

build: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build -j$(JOBS)

demo: build
	@scripts/demo.sh build/bot/reviewbot

test-build: deps
	cmake -S . -B build-test -DCMAKE_C_COMPILER=clang \
		-DCMAKE_BUILD_TYPE=Debug -DRB_WERROR=ON -DRB_SANITIZE=ON \
		-DRB_FUZZ=ON >/dev/null
	cmake --build build-test -j$(JOBS)

test: test-build
	cd build-test && ctest --output-on-failure -j$(JOBS) $(CTEST_ARGS)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-test demo
