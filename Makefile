# Backpropagation, an executable textbook.
#   make setup     virtual environment with the pinned packages (.venv/)
#   make test      execute every chapter and run the test suite
#   make book      HTML site, PDF and lecture slides into _book/
#                  (needs Quarto 1.10; a Chromium-family browser prints
#                  the slides handout, which is skipped without one)
#   make html | pdf | slides | preview | figures | notebooks | bench | clean
#   make mutants   each exercise's worked solution mutated, against its check
#   make pdf PROFILE=instructor   the PDF with exercise solutions
#   make book PROFILE=course      site and PDF without solutions or key,
#                                 into _book-course/

PYTHON ?= python3
VENV := .venv
# A venv keeps its programs in bin/, or in Scripts/ with a Windows Python
# (make from Git Bash or MSYS2; see README.md).
ifeq ($(OS),Windows_NT)
BIN := $(CURDIR)/$(VENV)/Scripts
else
BIN := $(CURDIR)/$(VENV)/bin
endif
PY := $(BIN)/python
QUARTO_VERSION := 1.10.19
PROFILE ?=
# Quarto runs the cells with the pinned packages of the venv.
export QUARTO_PYTHON := $(PY)

.PHONY: setup test html pdf slides book preview figures executed notebooks \
  bench clean quarto mutants

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt || \
	  { echo "error: pip could not install requirements.txt: check that Python is 3.11 and PyPI is reachable, then run make setup again" >&2; exit 1; }
	@$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e . || \
	  { echo "error: the book's package (code/backprop) did not install: see pip's message above" >&2; exit 1; }
	@touch $@

test: setup
	$(BIN)/pytest

# Quarto runs the chapters of _quarto.yml's list once, rendering the site
# into _book/ (`quarto render --to html -M keep-ipynb:true`), and keeps
# the notebooks it executed in _executed/; from them come the figures
# (figures/), the slides' numbers, the student notebooks and their zip
# (notebooks/), the PDF and the editions, without running anything
# again (code/booktools/render.py). The run is redone when anything it
# reads changes; the print's own files (site/print*, site/typst*) only
# redo the PDF, which `make pdf` renders every time.
RUN_INPUTS := _quarto.yml _environment $(wildcard *.qmd) \
  references.bib $(wildcard chapters/*.qmd chapters/*.yml \
  code/backprop/*.py code/booktools/*.py explorers/*) \
  $(filter-out site/print% site/typst%,$(wildcard site/*)) \
  slides/numbers.yml requirements.txt
RENDER = PATH="$$PATH:$(BIN)" $(PY) -m booktools.render \
  $(if $(PROFILE),--profile $(PROFILE))

_executed/.done: $(RUN_INPUTS) | quarto
	@PATH="$$PATH:$(BIN)" $(PY) -m booktools.render execute

executed: _executed/.done

# The figures and the notebooks are what the chapters' run shows.
figures notebooks: executed

bench: setup
	$(PY) -m booktools bench

# mutmut (tests/mutants/setup.cfg) mutates each exercise's worked solution,
# taken from its chapter, and runs the exercise's check on every mutant;
# a survivor must be listed, with its reason, in tests/mutants/equivalent.txt.
mutants: setup
	@cd tests/mutants && $(PY) solutions.py && \
	  { OMP_NUM_THREADS=1 $(PY) -m mutmut run --max-children 2 >mutmut.log || \
	    { tail -n 20 mutmut.log; exit 1; }; } && $(PY) solutions.py table

# Quarto from PATH, else the pinned quarto-cli wheel in the venv.
quarto: setup
	@command -v quarto >/dev/null 2>&1 || test -x $(BIN)/quarto || \
	  $(PY) -m pip install --quiet quarto-cli==$(QUARTO_VERSION) >/dev/null 2>&1 || \
	  { echo "error: Quarto $(QUARTO_VERSION) is missing: install it from https://quarto.org/docs/download/ (or use environment.yml), then run make again" >&2; exit 1; }

# The site is the run's own render; with PROFILE=instructor or course,
# an edition is rendered from the executed notebooks into
# _book-<profile>/. A failed render removes the output.
html: executed
	@$(RENDER) html

pdf: executed
	@$(RENDER) pdf

slides: executed
	@$(RENDER) slides

book: executed
	@$(RENDER) $(if $(PROFILE),html) pdf slides

# Quarto's own preview of the .qmd chapters (the default profile): saving
# a chapter runs that chapter again and refreshes its page.
preview: quarto
	PATH="$$PATH:$(BIN)" quarto preview $(if $(PROFILE),--profile $(PROFILE))

clean:
	rm -rf _book _book-* .quarto _executed notebooks chapters/*_files \
	  index_files chapters/*.quarto_ipynb* slides/_variables.yml \
	  slides/backprop.html slides/*.pdf slides/.quarto
