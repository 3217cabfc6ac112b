"""Generated artefacts: the committed figures, the student notebooks and
their zip."""

import json
import os
import re
import subprocess
import sys
import sysconfig
import zipfile

import nbformat
import pytest
from built import BUILD
from sources import book_numbers, chapters, read_qmd

from booktools import ROOT, bundle
from booktools.bundle import PinError, code_of, requirements

FIGURES = ROOT / "figures"


NUMBER = re.compile(rb"-?\d+\.?\d*(?:e-?\d+)?")
HEX = re.compile(rb"#([0-9a-fA-F]{6})\b")
# matplotlib names a clip path or a marker by a hash of its coordinates
# (salted, style.py): a hair's shift in them renames it
HASH_ID = re.compile(rb"\b([mp])[0-9a-f]{10}\b")


def tokens(data):
    """The file as (text between numbers, the numbers, the colours as
    numbers from 0 to 1).

    Different CPUs round the last bits of a float32 matrix product
    differently, and a figure's coordinates follow; the structure, the
    text and every value to within a hair must still match.
    """
    names, colours = {}, []
    data = HASH_ID.sub(lambda m: names.setdefault(
        m.group(0), m.group(1) + b"id" + b"x" * len(names)), data)

    def colour(match):
        colours.extend(int(match.group(1)[i:i + 2], 16) / 255
                       for i in (0, 2, 4))
        return b"#colour"

    data = HEX.sub(colour, data)
    return (NUMBER.split(data), [float(n) for n in NUMBER.findall(data)],
            colours)


# A line's points, a marker's place (a tick's, or a data point's), and
# the view box that sets the scale
PATH_DATA = re.compile(rb'\sd="[^"]*"|(?<=<use xlink:href="#m[0-9a-f]{10}")'
                       rb'\sx="[^"]*"\sy="[^"]*"')
VIEW_BOX = re.compile(rb'viewBox="0 0 ([\d.]+) ([\d.]+)"')


def same_figure(a, b, share=0.015):
    """The same elements, text and colours (to a hair), each placed
    within `share` of the figure's size; the lines' points and the
    markers' places are not compared. A training run in float32 takes
    another path on another CPU (its vector units round differently), so
    its curves, and the axes that fit them, move by a pixel or two and
    may gain a point; a stale figure differs in what it shows, not by a
    pixel."""
    size = max(map(float, VIEW_BOX.search(a).groups()))
    (text_a, nums_a, ink_a), (text_b, nums_b, ink_b) = (
        tokens(PATH_DATA.sub(b"", a)), tokens(PATH_DATA.sub(b"", b)))
    return (text_a == text_b and len(nums_a) == len(nums_b)
            and all(abs(x - y) <= share * size
                    for x, y in zip(nums_a, nums_b))
            and len(ink_a) == len(ink_b)
            and all(abs(x - y) <= 0.01 for x, y in zip(ink_a, ink_b)))


def test_figure_comparison_sees_real_changes():
    svg = (b'<svg viewBox="0 0 460.8 345.6"><path d="M 106.76 90.76"/>'
           b'<g transform="translate(21.2 142.25)"/>'
           b'<use xlink:href="#m3402abc5b2" x="51.7" y="137.6" '
           b'style="fill: #002859"/>')
    noise = (svg.replace(b"142.25", b"143.5").replace(b"#002859",
                                                      b"#00285a")
             .replace(b"M 106.76 90.76", b"M 106.8 91.4 L 107.2 92")
             .replace(b'y="137.6"', b'y="147.6"'))
    assert same_figure(svg, noise)
    assert not same_figure(svg, svg.replace(b"142.25", b"152.25"))
    assert not same_figure(svg, svg.replace(b"#002859", b"#d55e00"))
    assert not same_figure(svg, svg.replace(b"<use", b"<rect"))
    assert not same_figure(svg, svg + b'<use xlink:href="#m0123456789"/>')
    # a renamed clip path is the same figure; a clip path swapped is not
    clipped = (b'<svg viewBox="0 0 460.8 345.6">'
               b'<clipPath id="p9fbcbb7eae"/><clipPath id="p0123456789"/>'
               b'<path clip-path="url(#p9fbcbb7eae)"/>')
    renamed = clipped.replace(b"p9fbcbb7eae", b"p948ea382b7")
    assert same_figure(clipped, renamed)
    assert not same_figure(clipped, clipped.replace(b"url(#p9fbcbb7eae)",
                                                    b"url(#p0123456789)"))


def figure_names():
    """What each figure div of the chapters (::: {#fig-x ...}) is saved
    as: x."""
    return [name for path in chapters() for cell in read_qmd(path)[1]
            if cell.kind == "markdown"
            for name in re.findall(r"^:{3,} \{#fig-([\w-]+)", cell.source,
                                   re.MULTILINE)]


def test_figures_are_one_file_per_figure_label():
    names = figure_names()
    assert names and len(names) == len(set(names))
    # each drawn for the page, and again for the slides (figures/slides/)
    for folder in FIGURES, FIGURES / "slides":
        committed = sorted(p.name for p in folder.iterdir() if p.is_file())
        assert committed == sorted(f"{name}.svg" for name in names), (
            "run `make figures` (the chapters' runs), remove what no "
            f"figure div names, and commit {folder.relative_to(ROOT)}/")


def test_committed_figures_are_what_the_chapters_show(render_log):
    # the test build's run wrote its figures into its copy's figures/
    for folder in "figures", "figures/slides":
        shown = sorted(p.name for p in (BUILD / folder).glob("*.svg"))
        assert shown == sorted(f"{name}.svg" for name in figure_names())
        for name in shown:
            assert same_figure((BUILD / folder / name).read_bytes(),
                               (ROOT / folder / name).read_bytes()), (
                f"{folder}/{name} is stale: run `make figures`")


def test_figures_carry_no_timestamps(render_log):
    # matplotlib dates an SVG by the clock; the build keeps no date
    for svg in [*FIGURES.glob("**/*.svg"),
                *(BUILD / "figures").glob("**/*.svg")]:
        assert "<dc:date>" not in svg.read_text(), svg


@pytest.fixture(scope="module")
def notebooks(render_log):
    """The student notebooks, as the test build made them from the
    notebooks Quarto executed."""
    return {p.name: nbformat.read(p, as_version=4)
            for p in sorted((BUILD / "notebooks").glob("*.ipynb"))}


def test_notebooks_are_clean_and_leave_out_the_solutions(notebooks):
    for name, nb in notebooks.items():
        nbformat.validate(nb)
        text = json.dumps(nb)
        for leftover in ("{python}", "{{<", ":::", "#| label", "@fig-",
                         "@eq-", "@sec-", "html_block", "booktools",
                         "when-format", "quiz.block", "explorers.",
                         "]{.", "{.book-site", "](/notebooks",
                         "glossary.qmd"):  # a link to a page not there
            assert leftover not in text, (name, leftover)
        assert not re.search(r"\{#(sec|eq|exr)-", text)
        assert "Check your understanding" in text  # the questions stay
    # each opens with how to run it, then the chapter's own title; only
    # a chapter with exercises speaks of them (every chapter has some)
    numbers = book_numbers()
    # named with their chapter's number, so that they list in its order
    # one for each listed page with code (a chapter added to the list
    # is here too), and it opens with the chapter's id, sec-<name>
    coded = [page.stem for page in chapters(BUILD)
             if "```{python}" in page.read_text(encoding="utf-8")]
    assert len(coded) >= 4 and sorted(notebooks) == sorted(
        f"{numbers[f'sec-{name}']}-{name}.ipynb" for name in coded)
    for name, title in (("backprop", "Backpropagation"),
                        ("by-hand", "Backpropagation by hand")):
        number = numbers[f"sec-{name}"]
        intro, first = notebooks[f"{number}-{name}.ipynb"].cells[:2]
        assert "pip install -r requirements.txt" in intro.source
        assert first.source.startswith(f"# {number} {title}")
        assert "The exercises are here" in intro.source
    main = json.dumps(notebooks[f"{numbers['sec-backprop']}-backprop.ipynb"])
    assert "## Solution" not in main and "bug_gaps" not in main
    engine = json.dumps(notebooks[f"{numbers['sec-autograd']}-autograd.ipynb"])
    assert "tanh_losses" not in engine
    # exercises keep their numbers and titles, as the book numbers them
    assert (f"### Exercise {numbers['exr-by-hand']} (Pencil, easy)"
            in main)
    assert "def buggy_backward" in main  # an exercise's given code stays
    # headings carry the book's numbers, which the cross-references use
    assert f"# {numbers['sec-autograd']} Automatic differentiation" in engine
    assert f"## {numbers['sec-engine']} A tiny scalar autograd" in engine


BUILD_TOOLS = ("ruff", "playwright", "pytest", "hypothesis", "axe",
               "actionlint", "nbclient", "bibtexparser", "pyyaml")


def pinned(text):
    return sorted(line for line in text.splitlines()
                  if line and not line.startswith("#"))


def test_requirements_pin_only_what_the_notebooks_import(tmp_path):
    package = tmp_path / "backprop"
    package.mkdir()
    (package / "__init__.py").write_text('"""A package."""\n')
    (package / "plots.py").write_text(
        "import math\nimport matplotlib.pyplot as plt\nimport numpy as np"
        "\n\nfrom . import other\nfrom backprop import plots\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "%matplotlib inline\nimport copy\nimport torch\nfrom torch import "
        "nn\nfrom IPython.display import Markdown\nfrom backprop import "
        "plots"), nbformat.v4.new_markdown_cell("import pytest")]
    text = requirements(code_of(nb), package)
    pins = bundle.read_pins()
    assert pinned(text) == sorted(
        (pins[name] for name in ("ipython", "jupyter", "matplotlib",
                                 "numpy", "torch")), key=str.lower)
    assert all("==" in line for line in pinned(text))
    for tool in BUILD_TOOLS:
        assert tool not in text.lower(), tool


def test_requirements_fail_on_what_is_not_pinned(tmp_path):
    package = tmp_path / "backprop"
    package.mkdir()
    pins = tmp_path / "requirements.txt"
    pins.write_text("jupyter==1.1.1\ntorch==2.13.0\n")
    assert pinned(requirements(["import torch"], package, pins)) == [
        "jupyter==1.1.1", "torch==2.13.0"]
    with pytest.raises(PinError, match=r"import numpy.*not pinned"):
        requirements(["import numpy"], package, pins)
    with pytest.raises(PinError, match=r"no_such_module` \(not installed"):
        requirements(["import no_such_module"], package, pins)


def test_the_shipped_package_needs_no_build_tool():
    # the real teaching package, with no notebook: what it imports itself
    text = requirements([])
    assert "torch==" in text and "jupyter==" in text
    for tool in BUILD_TOOLS:
        assert tool not in text.lower(), tool


def isolated_python(root):
    """A Python that sees the pinned packages but not the book's package:
    a new venv whose .pth lists the project's site-packages, where the
    editable install's own .pth is then not processed."""
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip",
                    str(venv)], check=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    (site / "pinned.pth").write_text(sysconfig.get_paths()["purelib"])
    return venv / "bin" / "python"


def test_downloaded_notebooks_run_without_the_repository(notebooks,
                                                         tmp_path):
    archive = tmp_path / "backprop-notebooks.zip"
    bundle.bundle(notebooks, archive)
    with zipfile.ZipFile(archive) as z:
        z.extractall(tmp_path)
    folder = tmp_path / "backprop-notebooks"
    shipped = sorted(p.name for p in (folder / "backprop").glob("*.py"))
    assert shipped == sorted(p.name for p in (ROOT / "code" / "backprop")
                             .glob("*.py"))
    assert "quiz.py" not in shipped and "explorers.py" not in shipped
    for tool in BUILD_TOOLS:
        assert tool not in (folder / "requirements.txt").read_text().lower()
    python = isolated_python(tmp_path)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    outside = subprocess.run([str(python), "-c", "import backprop"],
                             cwd=tmp_path, env=env, capture_output=True)
    assert outside.returncode != 0  # the package is not installed there
    for name in notebooks:
        nb = nbformat.read(folder / name, as_version=4)
        script = "\n\n".join(c.source for c in nb.cells
                               if c.cell_type == "code")
        result = subprocess.run([str(python), "-c", script], cwd=folder,
                                env=env, capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, (name, result.stderr[-3000:])


def test_notebooks_read_conditional_spans_as_print_does():
    from booktools.notebooks import resolve_spans

    text = ('[Open it on the site.]{.content-visible when-format="html"}'
            '[[In print, it is left out.]{.content-hidden '
            'when-profile="course"}]{.content-visible when-format="typst" '
            'unless-profile="instructor"}'
            '[It follows.]{.content-visible when-profile="instructor"}')
    assert resolve_spans(text) == "In print, it is left out."
    # a link or a span of the site's address inside one: the address's
    # words, where none is set, and the link whole (they left raw
    # brackets in every notebook's exercise introduction)
    text = ('[The zip is on [the website]{.book-site\npath="a.zip"}, '
            '[see](/a.zip).]{.content-visible when-format="typst"}'
            '[[Here](/a.zip).]{.content-visible when-format="html"}')
    assert resolve_spans(text) == "The zip is on the website, [see](/a.zip)."
    # a notebook is Quarto's ipynb format: it leaves out what says where
    # the notebooks are
    text = ('[Run the check.[ The zip is online.]{.content-hidden '
            'when-format="ipynb"}]{.content-visible when-format="typst"}')
    assert resolve_spans(text) == "Run the check."


def test_a_callout_title_is_no_section_in_a_notebook():
    from booktools.notebooks import _plain_markdown

    text = ("::: {.callout-warning}\n\n## Keep updates out of the graph\n\n"
            "Rules 1 and 3 ...\n:::\n")
    plain = _plain_markdown(text, {})
    assert "## " not in plain
    assert plain.strip().startswith("**Keep updates out of the graph.**")


def test_notebook_citations_read_as_the_site_shows_them():
    from booktools.citations import cite

    refs = {"griewank2008evaluating": ("Griewank and Walther", "2008"),
            "he2015delving": ("He et al.", "2015"),
            "ba2016layer": ("Ba et al.", "2016")}
    text = ("as [@griewank2008evaluating] shows, @he2015delving derive it "
            "[@he2015delving; @ba2016layer]; write to a@b.org")
    assert cite(text, refs) == (
        "as (Griewank and Walther 2008) shows, He et al. (2015) derive it "
        "(He et al. 2015; Ba et al. 2016); write to a@b.org")


def test_the_zip_says_how_to_set_up_and_open_its_notebooks(tmp_path):
    from booktools import bundle as zipped
    from booktools.bundle import FOLDER, LICENCES, bundle, read_pins

    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("import torch"))
    bundle({"1-backprop.ipynb": nb, "2-autograd.ipynb": nb},
           tmp_path / "notebooks.zip",
           about={"1-backprop.ipynb": "one neuron first"})
    with zipfile.ZipFile(tmp_path / "notebooks.zip") as archive:
        readme = archive.read(f"{FOLDER}/README.md").decode()
        shipped = {name: archive.read(f"{FOLDER}/{name}").decode()
                   for name in LICENCES}
    # the notebooks in the book's order, each with what it covers
    assert ("- `1-backprop.ipynb`: one neuron first\n- `2-autograd.ipynb`"
            in readme)
    assert "Python 3.11" in readme and "jupyter lab" in readme
    # on Linux, the CPU build before the requirements that would fetch
    # the GPU one
    cpu = readme.index(
        "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu")
    assert cpu < readme.index("pip install -r requirements.txt")
    # the licences travel with the copy: micrograd's MIT notice too
    assert set(LICENCES) == {"LICENSE", "LICENSE-TEXT.md",
                             "THIRD_PARTY_NOTICES.md"}
    assert shipped == {name: (ROOT / name).read_text() for name in LICENCES}
    assert "micrograd" in shipped["THIRD_PARTY_NOTICES.md"]
    # where the website is, with its solutions: its address once the
    # Pages workflow sets it, else where to find it
    site = "https://example.org/book"
    assert site in zipped.readme({"a": nb}, read_pins(), site=site)
    assert "ask whoever pointed you to these notebooks" in zipped.readme(
        {"a": nb}, read_pins(), site="")
