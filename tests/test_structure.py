"""The book's sources: files, labels, cross-references, citations."""

import re

import bibtexparser
import pytest
import yaml

from booktools import book

CHAPTERS = book.chapters()
CROSSREF = re.compile(r"@((?:fig|eq|sec|tbl|exr)-[\w-]*\w)")
CITATION = re.compile(r"(?<![\w.])@([A-Za-z][\w]*\d{4}[a-z]+)")
LABEL_ATTR = re.compile(r"\{#((?:fig|eq|sec|tbl|exr)-[\w-]*\w)")
REQUIRED = {
    "article": {"author", "title", "journal", "year", "volume", "pages"},
    "inproceedings": {"author", "title", "booktitle", "year"},
    "incollection": {"author", "title", "booktitle", "publisher", "year",
                     "pages"},
    "book": {"author", "title", "publisher", "year"},
    "misc": {"author", "title", "year", "url"},
    "mastersthesis": {"author", "title", "school", "year"},
    "phdthesis": {"author", "title", "school", "year"},
}


def parsed():
    for path in CHAPTERS:
        yield path, book.read_qmd(path)[1]


def prose_and_captions(cells):
    for cell in cells:
        if cell.kind == "markdown":
            yield cell.source
        else:
            for key in ("fig-cap", "tbl-cap", "fig-alt"):
                yield str(cell.options.get(key, ""))


def all_labels():
    labels = []
    for _, cells in parsed():
        for cell in cells:
            if cell.kind == "code" and "label" in cell.options:
                labels.append(str(cell.options["label"]))
            elif cell.kind == "markdown":
                labels += LABEL_ATTR.findall(cell.source)
    return labels


def test_quarto_config_lists_existing_files():
    config = yaml.safe_load((book.ROOT / "_quarto.yml").read_text())
    assert config["project"]["type"] == "book"
    assert "freeze" not in config.get("execute", {})
    assert config["book"]["author"]  # the Typst book fails without one
    assert set(config["format"]) == {"html", "typst"}
    for path in CHAPTERS:
        assert path.exists(), path


def test_labels_are_unique():
    labels = all_labels()
    duplicates = {x for x in labels if labels.count(x) > 1}
    assert not duplicates


def test_every_cross_reference_resolves():
    labels = set(all_labels())
    for path, cells in parsed():
        for text in prose_and_captions(cells):
            for ref in CROSSREF.findall(text):
                assert ref in labels, f"{path.name}: @{ref} has no label"


def test_every_citation_is_in_the_bibliography():
    keys = {e["ID"] for e in bibliography().entries}
    cited = set()
    for path, cells in parsed():
        for text in prose_and_captions(cells):
            for key in CITATION.findall(text):
                assert key in keys, f"{path.name}: @{key} not in .bib"
                cited.add(key)
    assert cited == keys, f"never cited: {keys - cited}"


def bibliography():
    return bibtexparser.loads((book.ROOT / "references.bib").read_text())


def test_bibliography_entries_are_complete():
    entries = bibliography().entries
    assert len(entries) >= 5
    for entry in entries:
        missing = REQUIRED[entry["ENTRYTYPE"]] - set(entry)
        assert not missing, f"{entry['ID']} lacks {missing}"
        assert re.fullmatch(r"(19|20)\d\d", entry["year"])
        # theses of the 1970s have neither a DOI nor a stable address
        assert ("doi" in entry or "url" in entry
                or entry["ENTRYTYPE"].endswith("thesis")), entry["ID"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_figure_cells_have_caption_and_alt_text(path):
    for cell in book.read_qmd(path)[1]:
        if cell.kind != "code":
            continue
        label = str(cell.options.get("label", ""))
        draws = "plt.show()" in cell.source or "figures." in cell.source
        if draws or label.startswith("fig-"):
            assert label.startswith("fig-"), f"{cell.where} draws unlabelled"
            alt = str(cell.options.get("fig-alt", ""))
            assert cell.options.get("fig-cap"), cell.where
            assert len(alt.split()) >= 15, f"{cell.where}: fig-alt too short"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_code_fits_the_printed_page(path):
    for cell in book.read_qmd(path)[1]:
        if cell.kind == "code" and cell.options.get("echo", True):
            for line in cell.source.split("\n"):
                assert len(line) <= 80, f"{cell.where}: {line!r}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_no_chapter_numbers_typed_into_prose(path):
    # numbers of chapters and sections come from cross-references only
    text = path.read_text()
    assert not re.search(r"\b(Chapter|Section|Figure|Equation) \d", text)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_solutions_number_no_equations(path):
    # the student PDF leaves the solutions out: a numbered equation in
    # one would shift the numbers after it between the PDF and the site
    solutions = re.findall(r'^:::: \{\.content-hidden when-format="typst" '
                           r'unless-profile="instructor"\}\n(.*?)^::::$',
                           path.read_text(), re.MULTILINE | re.DOTALL)
    assert solutions or "{#exr-" not in path.read_text()
    for solution in solutions:
        assert "{#eq-" not in solution


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_cell_labels_use_only_figure_and_table_prefixes(path):
    # Quarto reads a label's prefix as a cross-reference type: a code
    # cell labelled exr-... or eq-... would be taken for one.
    reserved = ("eq", "sec", "exr", "thm", "lem", "cor", "prp", "cnj",
                "def", "exm", "lst", "sol", "rem")
    for cell in book.read_qmd(path)[1]:
        label = str(cell.options.get("label", ""))
        assert label.split("-")[0] not in reserved, label


def test_notebook_numbering_follows_the_book():
    numbers = book.book_numbers()
    # the preface is unnumbered: the three chapters of the text are 1 to 3
    # and the companion 4
    assert numbers["sec-backprop"] == "1"
    assert numbers["sec-autograd"] == "2" and numbers["sec-deep"] == "3"
    assert numbers["sec-by-hand"] == "4"
    assert numbers["sec-chain"] == "1.1" and numbers["sec-engine"] == "2.1"
    assert numbers["exr-tanh"] == "2.1" and numbers["exr-float32"] == "3.1"
    assert numbers["eq-chain"] == "1.1" and numbers["fig-numeric"] == "1.1"
    assert numbers["exr-by-hand"] == "1.1"
    referable = {x for x in all_labels() if CROSSREF.match("@" + x)}
    assert set(numbers) == referable  # every cross-reference target


def test_math_has_no_negative_thin_spaces():
    # `\!` looks right in MathML but Typst prints it far too wide, so
    # that a prime or a transpose collides with what follows (PDF p. 8).
    for path in CHAPTERS:
        assert "\\!" not in path.read_text(), path.name


def test_citation_facts_agree_everywhere():
    cff = yaml.safe_load((book.ROOT / "CITATION.cff").read_text())
    config = yaml.safe_load((book.ROOT / "_quarto.yml").read_text())
    cite = config["citation"]
    assert cff["title"] == cite["title"]
    assert cff["authors"][0]["name"] == cite["author"]
    assert str(cff["date-released"]) == str(cite["issued"])
    preface = (book.ROOT / "index.qmd").read_text()
    year = str(cite["issued"])[:4]
    assert f"year = {{{year}}}" in preface
    assert f"{cite['author']} ({year})" in preface
    footer = config["book"]["page-footer"]["center"]
    assert f"{cite['author']} ({year})" in footer
