# Thin front over the CMake presets. Every target installs missing Debian packages first
# (tools/deps.txt via tools/install-deps.sh).
#
#   make book        build the library and the demos (the target `demos`, not the tests),
#                    check every demo against its goldens, check the regions and fences,
#                    render build/book/html/index.html (beside the build: it reads only sources)
#   make test        the whole suite, each source compiled once per purpose: the default
#                    preset (optimised: library, demos, chapter tests, benchmarks; ctest:
#                    goldens, chapter tests, book render and browser check, source and
#                    reference checks), beside it the asan preset (AddressSanitizer + UBSan:
#                    the library and its unit, reference and parity tests)
#   make traces      regenerate every snippets/chNN-slug/expected.txt and trace.txt
#   make demo CH=30  build and run one chapter's demo, printing only its report
#                    (TRACE=1 prints its trace records instead); CH=0 and CH=00 both work
#   make sanitize    only the asan preset and its tests (the library's unit tests)
#   make bench       the benchmarks beside their references (PyTorch; SentencePiece for
#                    chapter 3's BPE trainer and chapter 4's encoder), printing ratios, and
#                    chapter 11's loop orders (writes bench/results/ch11-loop-order.txt),
#                    chapter 38's cached generation (bench/results/ch38-generation.txt) and
#                    chapter 42's matmul against its ceiling (bench/results/ch42-gemm.txt)
#   make bench-gemm  chapter 42's matmul against its instruction ceiling and OpenBLAS
#                    (writes bench/results/ch42-gemm.txt)
#   make bench-attention  chapter 41: attention memory per T and time beside PyTorch (minutes;
#                    writes bench/results/ch41-attention.txt and .json)
#   make train-ngram chapter 23's long run (minutes): the log and figure in docs/_static/
#   make train-decoder  chapter 33's long run (tens of minutes): the log and figure in
#                    docs/_static/ (progress on stderr when it is a terminal)
#   make train       chapter 39's long run (about 10 minutes on a quiet machine): the log,
#                    summary, samples and figure in docs/_static/, the model file
#                    tools/ch39-kjv-decoder.safetensors
#   make generate    text from that model: PROMPT="In the beginning" or prompts on stdin
#                    (MODEL=tools/ch42-kjv-decoder.safetensors: chapter 42's run instead)
#   make train-fast  chapter 42's run (under 10 minutes on a quiet machine): the 1.3M-parameter
#                    decoder with the fast path; log, summary, samples and figure in
#                    docs/_static/ch42*, the model file tools/ch42-kjv-decoder.safetensors
#   make bench-train chapter 42: the run's training step beside PyTorch float64 and float32
#                    (writes bench/results/ch42-train.txt)
#   make strict      build everything with every file compiled on its own (no unity batches):
#                    checks that each file includes what it uses

PRESET ?= default
BUILD  := build/$(PRESET)
PYTHON := /usr/bin/python3
CH     ?=

.PHONY: deps configure build demos book book-checks test traces demo sanitize bench bench-gemm bench-attention strict clean train-ngram train-decoder train generate train-fast bench-train

deps:
	@tools/install-deps.sh

configure: deps
	@echo "== configure ($(PRESET))"
	@mkdir -p build
	@cmake --preset $(PRESET) > $(BUILD).configure.log 2>&1 || { cat $(BUILD).configure.log; exit 1; }

build: configure
	@echo "== build ($(PRESET)): everything the preset compiles"
	@cmake --build --preset $(PRESET)

demos: configure
	@echo "== build ($(PRESET)): library and demos"
	@cmake --build --preset $(PRESET) --target demos

# The book is rendered from the sources alone (chapters, headers, goldens), not from anything
# the build makes: it renders in the background while the demos compile and the goldens run
# (Doxygen and Sphinx keep one core busy, the compiler the other), what the CMake target
# `book` would run (tools/build-book.py into the cache's LLMFS_BOOK_DIR). Its log is
# printed once the goldens are checked; the target fails if the demos, a check, a golden or
# the render failed.
book: configure
	@book_dir=$$(sed -n 's/^LLMFS_BOOK_DIR:PATH=//p' $(BUILD)/CMakeCache.txt); \
	  echo "== book: API reference (Doxygen) and chapters (Sphinx) into $$book_dir, beside the build;"; \
	  echo "   its log follows the goldens ($(BUILD).book.log)"; \
	  rm -f $(BUILD).book.rc; \
	  ( $(PYTHON) tools/build-book.py --work "$$book_dir" > $(BUILD).book.log 2>&1; echo $$? > $(BUILD).book.rc ) & \
	  $(MAKE) --no-print-directory book-checks PRESET=$(PRESET); checks=$$?; wait; \
	  echo "== book: the log"; cat $(BUILD).book.log; render=$$(cat $(BUILD).book.rc); \
	  test $$checks = 0 || echo "make book: the demos or their checks failed (above)"; \
	  test "$$render" = 0 || echo "make book: the render failed (its log above)"; \
	  test $$checks = 0 && test "$$render" = 0 && echo "book: open $$book_dir/html/index.html"

# What `make book` checks beside the render: the demos built, the regions, fences and
# Predict sections, every golden.
book-checks:
	@echo "== build ($(PRESET)): library and demos"
	@cmake --build --preset $(PRESET) --target demos
	@echo "== regions and fences: every region shown exactly once, no hand-typed code"
	@$(PYTHON) tests/book/book_checks.py regions .
	@$(PYTHON) tests/book/book_checks.py fences . && $(PYTHON) tests/book/listing_check.py check .
	@$(PYTHON) tests/book/book_checks.py predict .
	@echo "== demos: every chapter's report and trace against its golden"
	@ctest --preset $(PRESET) -L golden

# The default preset's tests run in the background while the asan preset compiles and then
# runs its tests: the browser check (the default suite's critical path, ctest starts it
# first) leaves a core idle part of the time, and the compiler and the sanitized tests fill
# it; the sanitized tests need nothing from the default suite. Both logs are printed once
# both suites are done; the target fails if either suite (or the asan build) failed.
test: build
	@echo "== tests (default): goldens, chapter tests, book, browser, source and reference checks,"
	@echo "   running beside the asan build and tests; their logs follow ($(BUILD).ctest.log, build/asan.ctest.log)"
	@rm -f $(BUILD).ctest.rc; \
	  ( ctest --preset $(PRESET) > $(BUILD).ctest.log 2>&1; echo $$? > $(BUILD).ctest.rc ) & \
	  $(MAKE) --no-print-directory build PRESET=asan; asan_build=$$?; asan=skipped; \
	  if test $$asan_build = 0; then \
	    echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer, beside the default tests"; \
	    ctest --preset asan > build/asan.ctest.log 2>&1; asan=$$?; \
	  fi; \
	  wait; \
	  echo "== tests (default), the log:"; cat $(BUILD).ctest.log; \
	  default=$$(cat $(BUILD).ctest.rc); \
	  if test $$asan_build = 0; then echo "== tests (asan), the log:"; cat build/asan.ctest.log; fi; \
	  echo "== make test: default tests rc=$$default, asan build rc=$$asan_build, asan tests rc=$$asan"; \
	  test "$$default" = 0 && test $$asan_build = 0 && test "$$asan" = 0

traces: demos
	@tools/regenerate-goldens.sh $(BUILD)/bin

# The demo's name from CH (30, 0 or 00); the build's progress goes to a log so that
# stdout is exactly the report (or the trace), as the chapter shows it.
demo:
	@test -n "$(CH)" || { echo "usage: make demo CH=30 [TRACE=1]"; exit 2; }
	@name=$$(basename "$$(ls -d snippets/ch$$(printf '%02d' $$(expr '$(CH)' + 0 2>/dev/null))-* 2>/dev/null | head -1)"); \
	  test -n "$$name" || { echo "no demo for chapter $(CH); chapters with demos: $$(ls snippets | grep '^ch' | tr '\n' ' ')"; exit 2; }; \
	  $(MAKE) --no-print-directory configure > $(BUILD).demo.log 2>&1 && \
	  cmake --build --preset $(PRESET) --target $$name >> $(BUILD).demo.log 2>&1 || { cat $(BUILD).demo.log; exit 1; }; \
	  $(BUILD)/bin/$$name $(if $(TRACE),--trace)

# Chapter 23's long run: the neural n-gram model trained for 10,000 AdamW steps of B = 128,
# the learning rate falling linearly, scored on the whole validation partition every 1,000
# steps. Progress on stderr when it is a terminal; the log (JSON lines) in
# docs/_static/ch23-train-ngram.jsonl, the trained model in tools/ch23-kjv-ngram.weights
# (chapter 39's test table scores it), the figure and table redrawn from it by
# tools/plot-ngram-log.py (checked by the test book.figures).
train-ngram:
	@$(MAKE) --no-print-directory configure > $(BUILD).demo.log 2>&1 && \
	  cmake --build --preset $(PRESET) --target ch23-a-neural-n-gram-model >> $(BUILD).demo.log 2>&1 || { cat $(BUILD).demo.log; exit 1; }
	@$(BUILD)/bin/ch23-a-neural-n-gram-model --train-long --log docs/_static/ch23-train-ngram.jsonl \
	  --weights tools/ch23-kjv-ngram.weights
	@/usr/bin/python3 tools/plot-ngram-log.py docs/_static/ch23-train-ngram.jsonl docs/_static/ch23-train-ngram
# Chapter 33's long run: the decoder of snippets/ch33-*/fixture.hpp (kLongModel) on the whole
# training partition as bytes, 2,000 steps of B = 16, validated every 200 steps. The log
# (JSON lines) in docs/_static/ch33-train-decoder.jsonl, the figure redrawn from it by
# tools/plot-training-log.py.
train-decoder:
	@$(MAKE) --no-print-directory configure > $(BUILD).demo.log 2>&1 && \
	  cmake --build --preset $(PRESET) --target ch33-training-and-model-selection >> $(BUILD).demo.log 2>&1 || { cat $(BUILD).demo.log; exit 1; }
	@$(BUILD)/bin/ch33-training-and-model-selection --train-long docs/_static/ch33-train-decoder.jsonl
	@$(PYTHON) tools/plot-training-log.py docs/_static/ch33-train-decoder.jsonl docs/_static/ch33-train-decoder.svg

# Chapter 39's long run: the decoder of snippets/ch39-*/fixture.hpp (kModel, 614,880
# parameters) on the whole training partition in BPE tokens, 2,000 steps of B = 16,
# T = 64, validated on every window of the validation partition every 200 steps; then
# every validation token scored, the sealed test (chapter 23's n-gram from
# tools/ch23-kjv-ngram.weights among its rows), the samples. Writes
# docs/_static/ch39-train.jsonl (the log), ch39-summary.json, ch39-samples.tsv, the
# selected model tools/ch39-kjv-decoder.safetensors (what `make generate` reads) and the
# last state as a Chapter 35 checkpoint in build/release/ch39-last.checkpoint (the release
# preset: -O2, the same bits as the -O1 of the goldens); the figure
# and tables are redrawn by tools/plot-ch39-run.py.
train:
	@mkdir -p build && $(MAKE) --no-print-directory configure PRESET=release > build/release.demo.log 2>&1 && \
	  cmake --build --preset release --target ch39-the-end-to-end-llm >> build/release.demo.log 2>&1 || { cat build/release.demo.log; exit 1; }
	@build/release/bin/ch39-the-end-to-end-llm --train-long --out docs/_static/ch39 \
	  --model tools/ch39-kjv-decoder.safetensors --checkpoint build/release/ch39-last.checkpoint \
	  --ngram tools/ch23-kjv-ngram.weights
	@$(PYTHON) tools/plot-ch39-run.py docs/_static/ch39-train.jsonl docs/_static/ch39-run

# Text from the trained model: `make generate` asks for prompts on stdin (one a line);
# `make generate PROMPT="In the beginning"` continues one. TOKENS, TEMPERATURE, TOP_K,
# SEED and GREEDY=1 choose how (defaults: 100 tokens, τ = 1, no cut, seed 39).
PROMPT ?=
MODEL ?= tools/ch39-kjv-decoder.safetensors
generate:
	@mkdir -p build && $(MAKE) --no-print-directory configure PRESET=release > build/release.demo.log 2>&1 && \
	  cmake --build --preset release --target ch39-the-end-to-end-llm >> build/release.demo.log 2>&1 || { cat build/release.demo.log; exit 1; }
	@build/release/bin/ch39-the-end-to-end-llm --generate --model $(MODEL) \
	  $(if $(PROMPT),--prompt "$(PROMPT)") $(if $(TOKENS),--tokens $(TOKENS)) \
	  $(if $(TEMPERATURE),--temperature $(TEMPERATURE)) $(if $(TOP_K),--top-k $(TOP_K)) \
	  $(if $(SEED),--seed $(SEED)) $(if $(GREEDY),--greedy)

# Chapter 42's run: the decoder of snippets/ch42-*/train_fast.hpp (kFastModel, 1,315,968
# parameters) on the whole training partition in BPE tokens, B = 16, T = 128, validated on
# every window of the validation partition at step 0 and every quarter of the run; then
# every validation token scored and chapter 39's prompts sampled. Writes
# docs/_static/ch42-train.jsonl, ch42-summary.json, ch42-samples.tsv and the selected model
# tools/ch42-kjv-decoder.safetensors (`make generate MODEL=…` reads it); the figure and
# tables are redrawn by tools/plot-ch42-run.py. The release preset (-O2).
train-fast:
	@mkdir -p build && $(MAKE) --no-print-directory configure PRESET=release > build/release.demo.log 2>&1 && \
	  cmake --build --preset release --target ch42-making-it-fast >> build/release.demo.log 2>&1 || { cat build/release.demo.log; exit 1; }
	@build/release/bin/ch42-making-it-fast --train-fast --out docs/_static/ch42 \
	  --model tools/ch42-kjv-decoder.safetensors
	@$(PYTHON) tools/plot-ch42-run.py docs/_static/ch42-train.jsonl docs/_static/ch42-run

# Chapter 42: the run's training step, ours beside PyTorch float64 and float32 (minutes).
bench-train:
	@mkdir -p build && $(MAKE) --no-print-directory configure PRESET=release > build/release.demo.log 2>&1 && \
	  cmake --build --preset release --target ch42-making-it-fast >> build/release.demo.log 2>&1 || { cat build/release.demo.log; exit 1; }
	@tools/run-train-bench.sh build/release

sanitize:
	@$(MAKE) --no-print-directory build PRESET=asan
	@echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer"
	@ctest --preset asan

# The benchmarks have their own preset: the library at -O2 (the default preset compiles the
# teaching code at -O1, which gives the same bits in every golden and compiles faster).
bench:
	@$(MAKE) --no-print-directory build PRESET=bench
	@tools/run-bench.sh build/bench
	@tools/run-bpe-bench.sh build/bench
	@tools/run-layout-bench.sh build/bench
	@tools/run-tokenizer-bench.sh build/bench
	@tools/run-loop-order-bench.sh build/bench
	@tools/run-generation-bench.sh build/bench
	@tools/run-gemm-bench.sh build/bench

# Chapter 42's matmul benchmark alone: the ceiling of the kernel's instructions, our matmul
# and OpenBLAS's dgemm at 1024 and 2048, one thread (writes bench/results/ch42-gemm.txt).
bench-gemm:
	@$(MAKE) --no-print-directory configure PRESET=bench
	@cmake --build --preset bench --target llmfs_gemm_bench
	@tools/run-gemm-bench.sh build/bench

# Chapter 41: attention memory (one process per T) and time beside PyTorch; minutes, not a test.
bench-attention:
	@cmake --preset bench > build/bench.configure.log 2>&1 || { cat build/bench.configure.log; exit 1; }
	@cmake --build --preset bench --target llmfs_attention_bench
	@tools/run-attention-bench.sh build/bench

strict:
	@$(MAKE) --no-print-directory build PRESET=strict

clean:
	rm -rf build
