# One place for every job a developer or CI runs. See README.md.
PYTHON ?= python3
# The generator is pinned: grpcio-tools 1.67.1 bundles protoc 27.2, whose Python
# gencode (5.27.2) loads on every protobuf runtime from 5.28 to 7.x. A newer
# generator stamps a newer gencode version, which older runtimes refuse to load.
GRPCIO_TOOLS_VERSION := 1.67.1
GEN_VENV := build/venv-generate
PROTO_FILES := $(shell find protos -name '*.proto' | sort)
# A front-end's protos live in its own package (tpuemb_cli/frontends/<name>/pb/), generated beside
# them with their comments in that folder's comments.py: a front-end is one package.
FRONTEND_PROTO_DIRS := $(sort $(dir $(shell find tpuemb_cli/frontends -name '*.proto')))
# The oldest and newest protobuf runtimes we support (TensorFlow 2.18-2.21 users).
PROTOBUF_OLDEST := 5.28.0
PROTOBUF_NEWEST := 7.36.2

.PHONY: venv-tf venv-jax venv-jax-next venv-keras venv-torchrec venv-protobuf oracle-venvs ci-venvs
.PHONY: chromium venv-browser test-browser bench-report test-sweep
.PHONY: install test test-slow check-test-split lint format generate check-generated docs check-docs docs-site test-protobuf-range test-tf test-jax test-jax-next test-keras test-torchrec fuzz fuzz-fix bench bench-venv bench-startup bench-stats examples dist test-wheel corpus-record corpus-compare

install:
	$(PYTHON) -m pip install -e '.[dev]'
	@# Byte-compile as pip does for a regular install, so start-up does not recompile every
	@# module when PYTHONDONTWRITEBYTECODE is set.
	$(PYTHON) -m compileall -q tpuemb_cli > /dev/null

# The suite in two parts, split by the `slow` marker (pyproject.toml): `make test`, run after every
# change, is every test but the slow ones, in one worker process per CPU (pytest-xdist);
# `make test-slow` is the slow ones: the real pre-commit, hypothesis sweeps, 100,000 tables. CI runs
# both, and `make check-test-split` proves that every test is in exactly one of them.
# PYTHONDONTWRITEBYTECODE is emptied for the test run: with it set, pytest cannot keep its
# assertion-rewritten test modules in __pycache__, and every worker re-rewrites them (3 s each).
PYTEST = PYTHONDONTWRITEBYTECODE= $(PYTHON) -m pytest
# A test that takes over 0.7 s (servers started, trees copied, every sample of the README run)
# is marked slow: `make test` stays under a minute on 2 cores; CI runs both.
FAST_TESTS = -m "not slow"
SLOW_TESTS = -m slow

test:
	$(PYTEST) -n auto $(FAST_TESTS)

test-slow:
	$(PYTEST) -n auto $(SLOW_TESTS)

# Every `explain --memory` the memory tests run (the modules that run one), run again once the
# test has passed as a sweep of a slice or two of each kind of verdict, and each slice of it
# against that slice alone (tests/sweep_check.py): the sweep says what each slice says.
SWEEP_TESTS = $(shell grep -l -- '"--memory"' tests/test_*.py tests/rules/test_*.py | grep -v -e test_memory_sweep -e test_html_reports -e test_memory_markdown)
test-sweep:
	mkdir -p build && rm -f build/sweep-count
	TPUEMB_SWEEP_COUNT=$(CURDIR)/build/sweep-count $(PYTEST) -n auto -q -p tests.sweep_check \
	  -m "slow or not slow" $(SWEEP_TESTS)
	@# Fails if the plugin compared too few (it would pass, silently, if it compared none).
	@awk '{n += $$1} END {print n " explain --memory runs compared as sweeps"; exit n < 1000}' \
	  build/sweep-count

# Collects the whole suite and each part (without running them) and fails unless the parts are
# disjoint and together the whole.
check-test-split:
	mkdir -p build/test-split
	$(PYTEST) -q -p no:cacheprovider --collect-only > build/test-split/all.txt
	$(PYTEST) -q -p no:cacheprovider --collect-only $(FAST_TESTS) > build/test-split/fast.txt
	$(PYTEST) -q -p no:cacheprovider --collect-only $(SLOW_TESTS) > build/test-split/slow.txt
	$(PYTHON) tools/check_test_split.py build/test-split/all.txt build/test-split/fast.txt \
	  build/test-split/slow.txt

lint:
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .
	$(PYTHON) -m mypy

format:
	$(PYTHON) -m ruff check --fix .
	$(PYTHON) -m ruff format .

$(GEN_VENV)/.installed-$(GRPCIO_TOOLS_VERSION):
	$(PYTHON) -m venv $(GEN_VENV)
	$(GEN_VENV)/bin/python -m pip install -q 'grpcio-tools==$(GRPCIO_TOOLS_VERSION)'
	touch $@

# Writes the _pb2.py and .pyi files next to tpuemb_cli/pb/, from protos/, and
# tpuemb_cli/pb/comments.py: the protos' comments, which generated code leaves out (the language
# server's hover shows them).
generate: $(GEN_VENV)/.installed-$(GRPCIO_TOOLS_VERSION)
	find tpuemb_cli/pb -name '*_pb2.py' -o -name '*_pb2.pyi' | xargs rm -f
	$(GEN_VENV)/bin/python -m grpc_tools.protoc -Iprotos --python_out=. --pyi_out=. $(PROTO_FILES)
	mkdir -p build
	$(GEN_VENV)/bin/python -m grpc_tools.protoc -Iprotos --include_source_info \
	  --descriptor_set_out=build/protos-with-comments.binpb $(PROTO_FILES)
	$(GEN_VENV)/bin/python tools/proto_comments.py build/protos-with-comments.binpb > tpuemb_cli/pb/comments.py
	for dir in $(FRONTEND_PROTO_DIRS); do \
	  find $$dir -name '*_pb2.py' -o -name '*_pb2.pyi' | xargs rm -f; \
	  $(GEN_VENV)/bin/python -m grpc_tools.protoc -I. --python_out=. --pyi_out=. $$dir*.proto && \
	  $(GEN_VENV)/bin/python -m grpc_tools.protoc -I. --include_source_info \
	    --descriptor_set_out=build/front-end-protos.binpb $$dir*.proto && \
	  $(GEN_VENV)/bin/python tools/proto_comments.py build/front-end-protos.binpb > $${dir}comments.py \
	  || exit 1; done

# Fails when the committed generated code differs from what `make generate` writes.
check-generated: $(GEN_VENV)/.installed-$(GRPCIO_TOOLS_VERSION)
	rm -rf build/check-generated && mkdir -p build/check-generated
	$(GEN_VENV)/bin/python -m grpc_tools.protoc -Iprotos --python_out=build/check-generated --pyi_out=build/check-generated $(PROTO_FILES)
	@cd build/check-generated && find . -name '*_pb2.py*' | sort > ../generated-fresh.txt
	@find tpuemb_cli/pb -name '*_pb2.py*' | sed 's|^|./|' | sort > build/generated-committed.txt
	@diff -u build/generated-committed.txt build/generated-fresh.txt || (echo "generated files differ from protos/: run make generate" && exit 1)
	@for f in $$(cat build/generated-fresh.txt); do \
	  diff -u "$$f" "build/check-generated/$$f" > /dev/null || { echo "stale: $$f (run make generate)"; exit 1; }; done
	$(GEN_VENV)/bin/python -m grpc_tools.protoc -Iprotos --include_source_info \
	  --descriptor_set_out=build/check-generated/protos-with-comments.binpb $(PROTO_FILES)
	@$(GEN_VENV)/bin/python tools/proto_comments.py build/check-generated/protos-with-comments.binpb | \
	  diff -u tpuemb_cli/pb/comments.py - > /dev/null || { echo "stale: tpuemb_cli/pb/comments.py (run make generate)"; exit 1; }
	@for dir in $(FRONTEND_PROTO_DIRS); do \
	  rm -rf build/check-generated/fe && mkdir -p build/check-generated/fe && \
	  $(GEN_VENV)/bin/python -m grpc_tools.protoc -I. --python_out=build/check-generated/fe \
	    --pyi_out=build/check-generated/fe $$dir*.proto && \
	  for f in $$(cd build/check-generated/fe && find . -name '*_pb2.py*'); do \
	    diff -u "$$f" "build/check-generated/fe/$$f" > /dev/null || { echo "stale: $$f (run make generate)"; exit 1; }; done && \
	  for f in $$(find $$dir -name '*_pb2.py*'); do \
	    test -f "build/check-generated/fe/$$f" || { echo "no proto makes $$f (run make generate)"; exit 1; }; done && \
	  $(GEN_VENV)/bin/python -m grpc_tools.protoc -I. --include_source_info \
	    --descriptor_set_out=build/check-generated/fe.binpb $$dir*.proto && \
	  $(GEN_VENV)/bin/python tools/proto_comments.py build/check-generated/fe.binpb | \
	    diff -u $${dir}comments.py - > /dev/null || { echo "stale: $${dir}comments.py (run make generate)"; exit 1; }; \
	done
	@echo "generated code is fresh"

# docs/rules.md, from the rule modules' docstrings.
docs:
	mkdir -p docs
	$(PYTHON) -m tpuemb_cli.rules.docs > docs/rules.md

check-docs:
	@$(PYTHON) -m tpuemb_cli.rules.docs | diff -u docs/rules.md - > /dev/null || (echo "docs/rules.md is stale: run make docs" && exit 1)
	@echo "docs/rules.md is fresh"

# The documentation site, into build/site: the README as its landing page and docs/*.md, assembled
# into build/site-src by tools/docs_site.py (links between them rewritten to the site's pages, a
# link to any other repository file written as its path; a target that does not exist fails), then
# built by MkDocs with the Material theme in strict mode (mkdocs.yml): a broken link or anchor, or a
# page the nav leaves out, fails. MkDocs runs in its own virtualenv: it is never a dependency of
# tpuemb.
MKDOCS_VERSION := 1.6.1
MKDOCS_MATERIAL_VERSION := 9.8.2
DOCS_VENV := build/venv-docs
DOCS_STAMP := $(DOCS_VENV)/.installed-$(MKDOCS_VERSION)-$(MKDOCS_MATERIAL_VERSION)
$(DOCS_STAMP):
	$(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/python -m pip install -q 'mkdocs==$(MKDOCS_VERSION)' \
	  'mkdocs-material==$(MKDOCS_MATERIAL_VERSION)'
	touch $@

docs-site: $(DOCS_STAMP)
	$(DOCS_VENV)/bin/python tools/docs_site.py build/site-src
	$(DOCS_VENV)/bin/python -m mkdocs build --strict --clean

# Runs the fast suite (the selection `make test` runs: FAST_TESTS) under the oldest and the newest
# supported protobuf runtime. Fast only: the slow tests (the real pre-commit, hypothesis sweeps,
# 100,000 tables) run once, in `make test-slow`, under the dev environment's protobuf; run here
# too they doubled this target's time (6 of CI's 32 minutes with them, two fresh environments
# included). One environment, build/venv-protobuf (its own target, which CI builds in the
# background with the oracles' venvs): tpuemb and the test extra installed once, then only the
# protobuf runtime swapped for each version (seconds, where a fresh environment with every
# dependency took 35 s), and the version the suite imports checked before it runs. PYTHONPATH:
# this tree's tpuemb_cli, whichever checkout the environment's editable install points at.
PROTOBUF_VENV := build/venv-protobuf
$(PROTOBUF_VENV)/.installed: pyproject.toml
	rm -rf $(PROTOBUF_VENV)
	$(PYTHON) -m venv $(PROTOBUF_VENV)
	$(PROTOBUF_VENV)/bin/python -m pip install -q -e '.[test]' 'protobuf==$(PROTOBUF_OLDEST)'
	touch $@

venv-protobuf: $(PROTOBUF_VENV)/.installed

test-protobuf-range: venv-protobuf
	for v in $(PROTOBUF_OLDEST) $(PROTOBUF_NEWEST); do \
	  $(PROTOBUF_VENV)/bin/python -m pip install -q "protobuf==$$v" && \
	  $(PROTOBUF_VENV)/bin/python -c "import sys, google.protobuf as p; print('protobuf', p.__version__); \
	    sys.exit(p.__version__ != '$$v')" && \
	  PYTHONPATH=$(CURDIR) PYTHONDONTWRITEBYTECODE= $(PROTOBUF_VENV)/bin/python -m pytest -q \
	    -p no:cacheprovider -n auto $(FAST_TESTS) || exit 1; \
	done

# spec_from_tf, `tpuemb diff` (a checkpoint saved under one side, restored under the other), the
# checkpoint reader and comparison (a checkpoint TensorFlow saved, read by tpuemb, restored under
# another config), the memory model (-rP shows what the memory test compared) and Keras-RS's
# TensorFlow backend (its conversion for TPUEmbeddingV2 against `--keras-backend tensorflow`),
# against TensorFlow itself: installs
# tensorflow-cpu 2.21 and the newest keras-rs (about 250 MB, a few minutes) with the protobuf it brings (7.x, under which
# TensorFlow cannot build configs itself).
# Each oracle's venv, made (or brought up to date) by its own target, which its test target runs
# first: CI builds them all in the background while the suite runs (`ci-venvs`), then runs the
# test targets with ORACLE_VENVS=built, under which a test target does not run its venv's target
# again (pip checking and reinstalling what it installed minutes before: 20 s to 25 s each).
ORACLE_VENVS ?= update
oracle_venv = $(if $(filter built,$(ORACLE_VENVS)),,$(1))
venv-tf:
	$(PYTHON) -m venv build/venv-tf
	build/venv-tf/bin/python -m pip install -q 'tensorflow-cpu==2.21.0' keras-rs -e '.[test]'

# Two workers (-n 2, as test-jax): the tests were one process, 4.5 of CI's 32 minutes; they use
# no session fixtures, and each worker runs the SparseCore oracle's process for itself.
test-tf: $(call oracle_venv,venv-tf)
	@build/venv-tf/bin/python -c "import importlib.metadata as m; print('tensorflow-cpu', m.version('tensorflow-cpu'), 'keras', m.version('keras'), 'keras-rs', m.version('keras-rs'))"
	build/venv-tf/bin/python -m pytest -q -rP -p no:cacheprovider -n 2 tests/test_tf.py tests/test_tf_diff.py \
	  tests/test_tf_checkpoint.py tests/test_tf_memory.py tests/test_tf_sparsecore_rules.py \
	  tests/test_tf_sparsecore.py tests/test_tf_sparsecore_memory.py tests/test_tf_keras_oracle.py \
	  tests/test_tf_keras_saving_oracle.py tests/test_tf_sparsecore_diff.py

# The JAX SparseCore support against jax-tpu-embedding itself: our mirror of its
# embedding_spec.proto against its generated module, and its own stacking and
# create_proto_from_feature_specs on CPU for generated cases (`compile --target jax` byte for byte
# with them), tpuemb_cli.jax on its objects with each front-end rule against what the library
# does, and diff's verdicts on stacked layouts against the library's restacking and Orbax's restore
# (tests/test_jax_*.py, skipped where the library is missing). Installs the newest
# jax-tpu-embedding this Python can install (0.2.0 needs
# Python 3.12; 0.1.0 installs on 3.11) with jax and jaxlib (about 800 MB, a few minutes), and says
# which it ran.
JAX_ORACLE_TESTS = tests/test_jax_oracle.py tests/test_jax_memory_oracle.py \
  tests/test_jax_front_oracle.py tests/test_jax_compile_oracle.py tests/test_jax_diff_oracle.py \
  tests/test_jax_prepared_oracle.py tests/test_jax_spec_proto_oracle.py \
  tests/test_jax_front_oracle_stacking.py tests/test_jax_orbax_oracle.py \
  tests/test_jax_stats_oracle.py tests/test_jax_check_stats_oracle.py \
  tests/test_fdo_stats_oracle.py
JAX_VERSIONS = import importlib.metadata as m, sys; print('jax-tpu-embedding', m.version('jax-tpu-embedding'), 'jax', m.version('jax'), 'on Python', sys.version.split()[0])
venv-jax:
	$(PYTHON) -m venv build/venv-jax
	build/venv-jax/bin/python -m pip install -q --upgrade jax-tpu-embedding -e '.[test]'

test-jax: $(call oracle_venv,venv-jax)
	@build/venv-jax/bin/python -c "$(JAX_VERSIONS)"
	build/venv-jax/bin/python -m pytest -q -rP -p no:cacheprovider -n 2 $(JAX_ORACLE_TESTS)

# The same tests against jax-tpu-embedding 0.2.0 or newer, which needs Python 3.12
# (JAX_NEXT_PYTHON), in build/venv-jax-next: 0.2.0 writes 0.1.0's proto and three fields more
# (tests/jax_release.py), and its checkpoint converter runs (tests/test_jax_diff_oracle.py).
# About 800 MB and a few minutes to install; the tests take about 2 minutes on 2 cores.
# Default: the first of python3.13, python3.12 and pyenv's 3.12+ installs that runs and is 3.12+.
JAX_NEXT_PYTHON ?= $(firstword $(foreach p,python3.13 python3.12 \
  $(wildcard $(HOME)/.pyenv/versions/3.1[2-9]*/bin/python),$(shell $(p) -c \
  "import sys; print('$(p)' if sys.version_info >= (3, 12) else '')" 2>/dev/null)))
JAX_NEXT_VENV ?= build/venv-jax-next
venv-jax-next:
	@$(JAX_NEXT_PYTHON) -c "import sys; sys.exit(sys.version_info < (3, 12))" 2>/dev/null || { \
	  echo "test-jax-next needs Python 3.12 or newer: none found; set JAX_NEXT_PYTHON (now '$(JAX_NEXT_PYTHON)')"; exit 2; }
	$(JAX_NEXT_PYTHON) -m venv $(JAX_NEXT_VENV)
	$(JAX_NEXT_VENV)/bin/python -m pip install -q --upgrade 'jax-tpu-embedding>=0.2.0' -e '.[test]'

test-jax-next: $(call oracle_venv,venv-jax-next)
	@$(JAX_NEXT_VENV)/bin/python -c "$(JAX_VERSIONS)"
	$(JAX_NEXT_VENV)/bin/python -m pytest -q -rP -p no:cacheprovider -n 2 $(JAX_ORACLE_TESTS)

# tpuemb's Keras-RS support against keras-rs itself, on CPU with KERAS_BACKEND=jax: at least 30
# generated DistributedEmbedding layers built and saved as .keras files, and tpuemb's verdicts on
# each against Keras-RS's own (its JAX conversion's refusals, jax-tpu-embedding's stacks and
# EmbeddingSpecProto, the shapes the layer returns), and spec_from_keras of the live layer against
# the spec read from its file (tests/test_keras_oracle.py), and `tpuemb diff`'s verdicts on pairs
# of saved models against what Keras's load_weights does with them (tests/test_keras_diff_oracle.py),
# and `diff --against-checkpoint` against what keras-rs's JaxKeras3CheckpointManager restores
# (tests/test_keras_orbax_oracle.py),
# and the verdicts on tables of one name, ignored table_stacking forms and "auto" placement per
# device kind (tests/test_keras_oracle_verdicts.py); skipped where keras-rs is missing.
# Installs the newest keras-rs with keras, jax and the newest jax-tpu-embedding this Python can
# install (about 800 MB, a few minutes), and says which it ran.
venv-keras:
	$(PYTHON) -m venv build/venv-keras
	build/venv-keras/bin/python -m pip install -q --upgrade keras-rs keras jax jax-tpu-embedding -e '.[test]'

test-keras: $(call oracle_venv,venv-keras)
	@build/venv-keras/bin/python -c "import importlib.metadata as m, sys; print(', '.join(p + ' ' + m.version(p) for p in ('keras-rs', 'keras', 'jax', 'jax-tpu-embedding')), 'on Python', sys.version.split()[0])"
	@# One process: it builds each case once for all the tests that compare with it.
	KERAS_BACKEND=jax JAX_PLATFORMS=cpu build/venv-keras/bin/python -m pytest -q -rfEsP -p no:cacheprovider \
	  tests/test_keras_oracle.py tests/test_keras_oracle_verdicts.py tests/test_keras_diff_oracle.py \
	  tests/test_keras_orbax_oracle.py

# tpuemb's TorchRec front-end against torchrec 1.9.2's own `torchrec.experimental.torch_tpu` on
# CPU: every case of tests/torchrec_cases.py built by the library (tests/torchrec_library.py, with
# its documented stand-in for the native preprocessing module and `torch.device("tpu")`) and read
# by tpuemb_cli.torchrec from the same live objects -- refusals, stacks, the module's weight and
# optimizer-state shapes, and the rules' verdicts compared case by case -- and the DCP checkpoints
# torchrec saves read by tpuemb as torch reads them (tests/test_torchrec_oracle.py; -rP prints the
# summary), then the harness's own tests (tests/test_torchrec_library.py). Skipped where torchrec
# is missing. Installs torch 2.14.1 (a CUDA build for Python 3.11, about 5 GB, a few minutes),
# fbgemm-gpu-cpu 1.9.0 and torchrec 1.9.2 without its dependencies (only those torch_tpu imports
# are pinned or listed), into TORCHREC_VENV unless it exists; prints the versions it ran.
TORCHREC_VENV ?= build/venv-torchrec
TORCHREC_ORACLE_TESTS = tests/test_torchrec_oracle.py tests/test_torchrec_library.py
TORCHREC_VERSIONS = import importlib.metadata as m, sys; print(', '.join(p + ' ' + m.version(p) for p in ('torchrec', 'torch', 'fbgemm-gpu-cpu')), 'on Python', sys.version.split()[0])
$(TORCHREC_VENV)/.installed-torchrec-1.9.2:
	$(PYTHON) -m venv $(TORCHREC_VENV)
	$(TORCHREC_VENV)/bin/python -m pip install -q torch==2.14.1 fbgemm-gpu-cpu==1.9.0 'etils[epath]' \
	  absl-py tensordict torchmetrics==1.0.3 tqdm pyre-extensions numpy
	$(TORCHREC_VENV)/bin/python -m pip install -q --no-deps torchrec==1.9.2
	$(TORCHREC_VENV)/bin/python -m pip install -q -e '.[test]'
	touch $@

venv-torchrec: $(TORCHREC_VENV)/.installed-torchrec-1.9.2

# Every oracle's venv, one after another.
oracle-venvs: venv-tf venv-jax venv-jax-next venv-keras venv-torchrec

# What CI builds in the background while the suite runs, one after another (no two editable
# installs of this tree at once): the protobuf range's environment, the oracles', then Chromium
# (apt) and the browser tests' venv.
ci-venvs: venv-protobuf oracle-venvs chromium venv-browser

test-torchrec: $(call oracle_venv,venv-torchrec)
	@$(TORCHREC_VENV)/bin/python -c "$(TORCHREC_VERSIONS)"
	@# One process: each case is built once for every comparison; tpuemb_cli and tests from this
	@# tree (the venv's editable install may point at another checkout).
	PYTHONPATH=$(CURDIR) $(TORCHREC_VENV)/bin/python -m pytest -q -rfEsP --show-capture=stdout \
	  -p no:cacheprovider $(TORCHREC_ORACLE_TESTS)

# The HTML reports (`--format html`) in a real browser: Debian's chromium and chromium-driver,
# installed with apt-get when /usr/bin/chromium is missing (as root: CI's containers are), and
# selenium in build/venv-browser (made once; its stamp file says so), which runs tests/browser/:
# each shipped example's page opened headless, no console error, every figure equal to the JSON
# report's; screenshots in build/screenshots/. TPUEMB_README_SCREENSHOT=1 also writes the
# README's picture, docs/images/report-memory.png.
BROWSER_VENV := build/venv-browser
$(BROWSER_VENV)/.installed:
	$(PYTHON) -m venv $(BROWSER_VENV)
	$(BROWSER_VENV)/bin/python -m pip install -q -e '.[test]' selenium
	touch $@

venv-browser: $(BROWSER_VENV)/.installed

chromium:
	@test -x /usr/bin/chromium -a -x /usr/bin/chromedriver || \
	  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; }

test-browser: chromium $(BROWSER_VENV)/.installed
	@/usr/bin/chromium --version; $(BROWSER_VENV)/bin/python -c "import selenium; print('selenium', selenium.__version__)"
	@# tpuemb_cli and tests from this tree (the venv's editable install may point at another checkout).
	PYTHONPATH=$(CURDIR) PYTHONDONTWRITEBYTECODE= $(BROWSER_VENV)/bin/python -m pytest -q -rfEs \
	  -p no:cacheprovider tests/browser

# The HTML reports of 10,000 tables (bench/report_html.py): size, `--format html` against
# `--format json` time, and the render time in Chromium (with build/venv-browser, if made).
# The tpuemb measured is the wheel's, installed in build/venv-bench (a regular install, as users
# have it), run by its console script.
bench-report: bench-venv
	PYTHONPATH=$(CURDIR) $(if $(wildcard $(BROWSER_VENV)/.installed),$(BROWSER_VENV)/bin/python,$(PYTHON)) -m bench.report_html --tpuemb $(CURDIR)/$(BENCH_VENV)/bin/tpuemb

# Coverage-guided fuzzing (atheris) of each loader, of --add-suppressions and of --fix/--diff (fuzz-fix), for FUZZ_SECONDS
# each; crashes land in build/fuzz/<target>/ -- copy a loader's to fuzz/regressions/, which the
# test suite replays; a baseline crash is replayed with fuzz/fuzz_baseline.py and becomes a case
# in tests/test_baseline.py. The yaml-aliases and json-hostile targets drive
# tests/test_hostile_inputs.py's generators (a crash is a failing example of that test, which
# hypothesis prints); -rss_limit_mb bounds memory.
FUZZ_SECONDS ?= 450
fuzz:
	$(PYTHON) -m pip install -q atheris
	@status=0; for fmt in text json yaml binary keras yaml-aliases json-hostile keras-layers; do \
	  mkdir -p build/fuzz/$$fmt build/fuzz-corpus/$$fmt && \
	  cp -n fuzz/corpus/$$fmt/* build/fuzz-corpus/$$fmt/ 2>/dev/null; \
	  (cd build/fuzz/$$fmt && $(PYTHON) ../../../fuzz/fuzz_loaders.py $$fmt \
	    -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 \
	    ../../fuzz-corpus/$$fmt) || status=1; \
	done; \
	mkdir -p build/fuzz/baseline build/fuzz-corpus/baseline && \
	(cd build/fuzz/baseline && $(PYTHON) ../../../fuzz/fuzz_baseline.py \
	  -max_total_time=$(FUZZ_SECONDS) -max_len=400 -len_control=0 -rss_limit_mb=4096 \
	  -timeout=30 -print_final_stats=1 ../../fuzz-corpus/baseline) || status=1; \
	$(MAKE) --no-print-directory fuzz-fix PYTHON=$(PYTHON) FUZZ_SECONDS=$(FUZZ_SECONDS) || status=1; \
	exit $$status

# --fix and --diff on drawn and mutated configs (fuzz/fuzz_fix.py says which properties), for
# FUZZ_SECONDS; failing inputs land in build/fuzz/fix/.
fuzz-fix:
	$(PYTHON) -m pip install -q atheris
	mkdir -p build/fuzz/fix build/fuzz-corpus/fix
	cd build/fuzz/fix && $(PYTHON) ../../../fuzz/fuzz_fix.py -max_total_time=$(FUZZ_SECONDS) \
	  -max_len=4096 -len_control=0 -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 ../../fuzz-corpus/fix

# The benchmark (bench/run.py). Its start-up line measures the `tpuemb` of build/venv-bench: the
# wheel `make dist` builds, installed with plain pip (not editable) into a fresh environment, as
# users have it; every other line runs in-process or with $(PYTHON)'s environment.
bench: bench-venv
	$(PYTHON) -m bench.run --startup-python $(BENCH_VENV)/bin/python

# The start-up line alone, three runs of 21 pairs, on the wheel: `python -m bench.startup` run by
# build/venv-bench's interpreter, which measures its own console script and fails unless the
# tpuemb_cli it imports is that environment's (--installed).
bench-startup: bench-venv
	$(BENCH_VENV)/bin/python -m bench.startup --runs 3 --installed

# `tpuemb stats` on 10 million ids against jax-tpu-embedding's own preprocessing of the same ids
# on CPU (bench/stats.py: 5 pairs, the median ratio; target 3x), in build/venv-jax, which
# `make test-jax` makes (the library, numpy and tpuemb).
bench-stats:
	build/venv-jax/bin/python -m bench.stats

# build/venv-bench: the wheel, installed with plain pip (no -e) into a fresh environment.
BENCH_VENV = build/venv-bench
bench-venv: dist
	rm -rf $(BENCH_VENV)
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install -q build/dist/*.whl

examples:
	$(PYTHON) -m tpuemb_cli check examples/

# The package users install: the sdist and the wheel, checked as PyPI would render them; then the
# wheel in a fresh environment (no editable install, no repository on sys.path) on the shipped
# examples, which must print what the clone prints.
DIST_VENV = build/venv-dist
dist:
	$(PYTHON) -m venv $(DIST_VENV)
	$(DIST_VENV)/bin/python -m pip install -q build twine
	rm -rf build/dist
	$(DIST_VENV)/bin/python -m build -q -o build/dist .
	$(DIST_VENV)/bin/python -m twine check --strict build/dist/*

test-wheel: dist
	rm -rf build/venv-wheel
	$(PYTHON) -m venv build/venv-wheel
	build/venv-wheel/bin/python -m pip install -q build/dist/*.whl
	build/venv-wheel/bin/tpuemb --version
	build/venv-wheel/bin/tpuemb check examples/ --format json > build/wheel-examples.json || test $$? -eq 1
	$(PYTHON) -m tpuemb_cli check examples/ --format json > build/clone-examples.json || test $$? -eq 1
	cmp build/wheel-examples.json build/clone-examples.json
	@echo "the wheel's check of examples/ is the clone's"

# The recorded corpus of outputs (tools/output_corpus.py): every command that reads one file on
# every example and fixture. A refactor records it before (on main) and compares after: every
# stdout, stderr and exit code must be the same.
CORPUS ?= build/output-corpus.json
corpus-record:
	$(PYTHON) tools/output_corpus.py record $(CORPUS)

corpus-compare:
	$(PYTHON) tools/output_corpus.py compare $(CORPUS)
