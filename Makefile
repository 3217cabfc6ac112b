# Backpropagation, an executable textbook chapter.
#   make setup     virtual environment with the pinned packages (.venv/)
#   make test      execute every chapter and run the test suite
#   make book      HTML site, PDF and lecture slides into _book/
#                  (needs Quarto 1.10; a Chromium-family browser prints
#                  the slides handout, which is skipped without one)
#   make html | pdf | slides | preview | figures | notebooks | bench | clean
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
  bench clean quarto

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

# Each chapter runs once per build, whatever the formats, into what Quarto
# renders (chapters/x-executed.ipynb); the run also keeps the chapter's
# figures (figures/, as SVG and PDF) and the numbers the slides take from
# it. A chapter runs again only when something it runs changes: its
# source, the teaching package, the questions, the slides' numbers, the
# pins, or the build modules that run it or that its kernel imports. The
# exporters, the renderer and the bench are not among them.
CHAPTERS := $(wildcard chapters/*.qmd)
EXECUTED := $(CHAPTERS:.qmd=-executed.ipynb)
NOTEBOOKS := $(patsubst chapters/%.qmd,notebooks/%.ipynb,$(CHAPTERS))
BOOKTOOLS := code/booktools
RUNS := $(wildcard code/backprop/*.py) chapters/questions.yml \
  slides/numbers.yml requirements.txt \
  $(addprefix $(BOOKTOOLS)/,__init__.py qmd.py run.py slides.py quiz.py \
  explorers.py live.py)

chapters/%-executed.ipynb: chapters/%.qmd $(RUNS) | $(VENV)/.installed
	$(PY) -m booktools execute $<

# The numbers each run kept are gathered into slides/_variables.yml.
slides/_variables.yml: $(EXECUTED) $(BOOKTOOLS)/slides.py
	$(PY) -m booktools variables

# The chapters are independent: run them side by side (2 cores here).
executed: $(VENV)/.installed
	@$(MAKE) --no-print-directory -j2 $(EXECUTED) slides/_variables.yml

# The figures are what the chapters' runs show.
figures: executed

# A student notebook is made from its executed chapter, without running
# it; the book's numbering comes from every chapter's source.
notebooks/%.ipynb: chapters/%-executed.ipynb $(CHAPTERS) _quarto-source.yml \
  $(addprefix $(BOOKTOOLS)/,__init__.py qmd.py quiz.py notebooks.py) \
  | $(VENV)/.installed
	$(PY) -m booktools notebook $<

# The zip: the notebooks, the teaching package and what they need pinned.
notebooks/backprop-notebooks.zip: $(NOTEBOOKS) $(wildcard code/backprop/*.py) \
  requirements.txt $(BOOKTOOLS)/bundle.py
	$(PY) -m booktools bundle

notebooks: executed
	@$(MAKE) --no-print-directory notebooks/backprop-notebooks.zip

bench: setup
	$(PY) -m booktools bench

# Quarto from PATH, else the pinned quarto-cli wheel in the venv.
quarto: setup
	@command -v quarto >/dev/null 2>&1 || test -x $(BIN)/quarto || \
	  $(PY) -m pip install --quiet quarto-cli==$(QUARTO_VERSION) >/dev/null 2>&1 || \
	  { echo "error: Quarto $(QUARTO_VERSION) is missing: install it from https://quarto.org/docs/download/ (or use environment.yml), then run make again" >&2; exit 1; }

# Quarto renders the executed chapters (profile executed; see _quarto.yml):
# the site, and beside it the PDF (in a copy of the sources) then the
# slides; a failed render removes the output (booktools/render.py). With
# PROFILE=instructor or course, into _book-<profile>/.
RENDER = PATH="$$PATH:$(BIN)" $(PY) -m booktools.render \
  $(if $(PROFILE),--profile $(PROFILE))

html: quarto executed notebooks
	@$(RENDER) html

pdf: quarto executed
	@$(RENDER) pdf

slides: quarto executed
	@$(RENDER) slides

book: quarto executed notebooks
	@$(RENDER) html pdf slides

# Quarto's own preview of the .qmd chapters (the default profile): saving
# a chapter runs that chapter again and refreshes its page.
preview: quarto
	PATH="$$PATH:$(BIN)" quarto preview $(if $(PROFILE),--profile $(PROFILE))

clean:
	rm -rf _book _book-* .quarto notebooks chapters/*_files index_files \
	  chapters/*-executed.ipynb slides/_variables.yml slides/backprop.html \
	  slides/*.pdf slides/.quarto
