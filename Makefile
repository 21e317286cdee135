# One-command set-up, build and test. See README.md.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(abspath $(VENV))/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
export PATH := $(BIN):$(PATH)
export PYTHONHASHSEED := 0
# The book's tensors are tiny: one thread per process avoids oversubscribing a 2-core machine
# (measured: small ops 100x slower with 2 threads under load) and makes runs reproducible.
export OMP_NUM_THREADS := 1
# Test processes run side by side (pytest-xdist); one per core of the 2-core machine.
JOBS ?= 2

.PHONY: setup chromium fonts gettext book test unit notebooks build-book i18n-check browser lab strip freeze clean preview slides handouts i18n-update

# Create the virtual environment and install the pinned requirements, posenc and the book's
# package (both editable; idempotent).
setup: $(STAMP) chromium fonts gettext
$(STAMP): requirements.txt pyproject.toml book/pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e . -e book
	@touch $(STAMP)

# A Debian package the tests or the build need: installed when missing and running as root
# (apt-get); otherwise a note says how. $(call apt_install,<is it there?>,<package>,<who needs it>)
apt_install = @$(1) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -q $(2) || { apt-get update -q && apt-get install -y -q $(2); }; \
	  else echo "note: $(2) is not installed; $(3) need it: sudo apt-get install -y $(2)"; fi; }

# Debian's chromium drives the browser tests (never `playwright install`: it cannot download here).
chromium:
	$(call apt_install,command -v chromium,chromium,the browser tests)

# Chinese text in the PDF handouts and in the browser tests' screenshots needs a CJK font.
fonts:
	$(call apt_install,fc-list 2>/dev/null | grep -q "Noto Sans CJK",fonts-noto-cjk,the Chinese handouts)

# msgfmt (Debian's gettext) checks the translation catalogues in the tests.
gettext:
	$(call apt_install,command -v msgfmt,gettext,the catalogue tests)

# Build the whole book in English and in Chinese (_build/html/zh_CN/), warnings as errors.
# Every notebook is executed once, for both editions (book/tools/build_book.py). Each step
# redoes only what its inputs changed (stamps in _build/.stamps/, handouts_cache.json): with
# nothing changed, no Sphinx, no browser, no check runs; `python -m book build --all` and
# `python -m book handouts --force` redo everything.
book: setup build-book
	@echo "The book is in $(abspath _build/html)/index.html (Chinese: $(abspath _build/html/zh_CN)/index.html)"

build-book:
	@time $(PY) -m book build
	@# PDF handouts of every page and of the whole book, both editions in one browser
	@# (before check_site: the pages link to them)
	@time $(PY) -m book handouts _build/html _build/html/zh_CN
	@time $(PY) -m book check-site _build/html

# The catalogues against a fresh extraction of the English text (uses the build's executed
# outputs, for the figure captions and explorers); that every entry is translated, none fuzzy,
# markup kept, is checked earlier by the unit tests (tests/book/tools/test_i18n.py).
i18n-check:
	$(PY) -m book i18n stale
	$(PY) -m book i18n stats

# After editing English prose: extract the text again and merge it into the catalogues of
# locales/ (new paragraphs arrive untranslated, edited ones fuzzy); then translate them.
i18n-update: setup
	$(PY) -m book i18n update
	$(PY) -m book i18n stats

# Rebuild only the slide decks (_build/html/slides/) from the last build's executed notebooks;
# `make book` builds them itself (book/ext/slides.py).
slides: setup
	$(PY) -m book slides _build .
	$(PY) -m book slides _build/zh_CN . zh_CN && cp -r _build/zh_CN/html/slides _build/html/zh_CN/

# Reprint only the PDF handouts (_build/html/pdf/) from the last build; `make book` prints them.
handouts: setup
	$(PY) -m book handouts _build/html _build/html/zh_CN

# Unit tests, then the notebooks under nbval, then the book build, then the translations
# against the built English text, then the built site in a browser.
test: setup unit notebooks build-book i18n-check browser

unit:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(PY) -m pytest -q -n $(JOBS) tests
	$(PY) -m pytest -q --doctest-modules posenc
	$(PY) -m book nb check chapters/*.ipynb appendix/*.ipynb

notebooks:
	$(PY) -m pytest -q -n $(JOBS) --dist loadfile --nbval-lax --nbval-current-env chapters appendix

# The built site in Debian's chromium: offline loading, console, math, explorers, page sizes.
# Screenshots and a per-page table go to _build/screenshots/.
browser:
	$(PY) -m pytest -q -n $(JOBS) --dist loadgroup tests/browser

# Open JupyterLab on the chapters (live explorers).
lab: setup
	$(BIN)/jupyter lab chapters

# Strip outputs from the chapters, keeping the cells marked NBVAL_CHECK_OUTPUT.
strip: setup
	$(PY) -m book nb strip chapters/*.ipynb appendix/*.ipynb

freeze:
	$(PY) -m pip freeze --exclude-editable | sed 's/^torch==2.13.0+cpu$$/torch==2.13.0/'

clean:
	rm -rf _build

# Build one chapter alone (fast preview, safe to run beside other builds):
#   make preview CH=chapters/03_sinusoidal.ipynb   ->  _build/preview/03_sinusoidal/_build/html
preview: setup
	@test -n "$(CH)" || { echo "usage: make preview CH=chapters/NN_name.ipynb"; exit 2; }
	@name=$$(basename $(CH) .ipynb); dir=_build/preview/$$name; rm -rf $$dir; mkdir -p $$dir/chapters; \
	cp -r _config.yml references.bib intro.md images quizzes $$dir/; cp $(CH) $$dir/chapters/; \
	printf 'format: jb-book\nroot: intro\nchapters:\n  - file: chapters/%s\n' $$name > $$dir/_toc.yml; \
	cd $$dir && $(BIN)/jupyter-book build --all -W -n --keep-going . && echo "preview: $$PWD/_build/html/chapters/$$name.html"
