# Thin front over the CMake presets. Every target installs missing Debian packages first
# (tools/deps.txt via tools/install-deps.sh).
#
#   make book        build everything, run and check every demo, render build/book/html/index.html
#   make test        the whole ctest suite (unit, chapter, golden, parity, book and browser
#                    checks), then every unit, chapter and golden test again under ASan+UBSan
#   make traces      regenerate every snippets/chNN-slug/expected.txt and trace.txt
#   make demo CH=30  build and run one chapter's demo (TRACE=1 prints its trace records)
#   make sanitize    only the asan preset (AddressSanitizer + UBSan) and its tests
#   make bench       the benchmark beside its PyTorch reference, printing ratios

PRESET ?= default
BUILD  := build/$(PRESET)
CH     ?=

.PHONY: deps configure build book test traces demo sanitize bench clean

deps:
	@tools/install-deps.sh

configure: deps
	@echo "== configure ($(PRESET))"
	@mkdir -p build
	@cmake --preset $(PRESET) > $(BUILD).configure.log 2>&1 || { cat $(BUILD).configure.log; exit 1; }

build: configure
	@echo "== build ($(PRESET)): library, demos, tests"
	@cmake --build --preset $(PRESET) -- --no-print-directory

book: build
	@echo "== demos: every chapter's report and trace against its golden"
	@ctest --preset $(PRESET) -L golden
	@echo "== book: API reference (Doxygen) and chapters (Sphinx)"
	@cmake --build --preset $(PRESET) --target book
	@echo "book: open build/book/html/index.html"

test: build
	@echo "== tests: unit, chapter, golden, parity, book and browser checks"
	@ctest --preset $(PRESET)
	@$(MAKE) --no-print-directory sanitize

traces: build
	@tools/regenerate-goldens.sh $(BUILD)/bin

demo: build
	@test -n "$(CH)" || { echo "usage: make demo CH=30"; exit 2; }
	@exe=$$(ls -d $(BUILD)/bin/ch$(CH)-* 2>/dev/null | head -1); \
	  test -n "$$exe" || { echo "no demo for chapter $(CH)"; exit 2; }; \
	  echo "== $$exe $(if $(TRACE),--trace)"; $$exe $(if $(TRACE),--trace)

sanitize:
	@$(MAKE) --no-print-directory build PRESET=asan
	@echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer"
	@ctest --preset asan

bench: build
	@tools/run-bench.sh $(BUILD)

clean:
	rm -rf build
