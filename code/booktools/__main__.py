"""python -m booktools COMMAND: the build steps that make runs.

    execute CHAPTER    run chapters/x.qmd once: chapters/x-executed.ipynb
                       (what Quarto renders, with the slides' numbers)
                       and its figures in figures/
    notebook CHAPTER   the student notebook notebooks/x.ipynb, from the
                       executed notebook (nothing runs)
    bundle             notebooks/backprop-notebooks.zip
    variables          slides/_variables.yml, from the executed chapters
    bench              build times against Quarto's floor

A dispatcher only: each command imports just the module that does its
job (execute: run.py; notebook: notebooks.py; bundle: bundle.py;
variables: slides.py; bench: bench.py), so that a chapter's run depends
on run.py, what it imports, and the build modules that the chapter's own
build- and quiz- cells import (quiz.py, explorers.py): the Makefile's
RUNS, which tests/test_boundary.py checks. Rendering is
`python -m booktools.render`.
"""

import sys
from pathlib import Path


def _executed(chapter):
    """chapters/x-executed.ipynb for chapters/x.qmd (or itself)."""
    from booktools.qmd import EXECUTED, executed_path

    return Path(chapter) if chapter.endswith(EXECUTED) else executed_path(
        chapter)


def _remove_site():
    """Remove every built edition (_book/, _book-course/, ...): each
    shows a chapter that no longer runs, and must not look complete."""
    import shutil

    from booktools import ROOT

    sites = sorted(ROOT.glob("_book*"))
    for site in sites:
        shutil.rmtree(site, ignore_errors=True)
    names = ", ".join(f"{s.name}/" for s in sites) or "no site"
    return f"{names} removed: fix the cell, then build again"


def main(argv):
    command, args = (argv[0], argv[1:]) if argv else ("", [])
    if command == "execute" and len(args) == 1:
        from booktools.run import ChapterError, execute_chapter

        try:
            execute_chapter(args[0])
        except ChapterError as err:  # the cell's traceback, not ours
            sys.exit(f"error: {err}\n{_remove_site()}")
    elif command == "notebook" and len(args) == 1:
        from booktools.notebooks import export

        export(_executed(args[0]))
    elif command == "bundle" and not args:
        from booktools.bundle import bundle_notebooks

        bundle_notebooks()
    elif command == "variables" and not args:
        from booktools.slides import write_slide_variables

        write_slide_variables()
    elif command == "bench" and not args:
        from booktools.bench import bench

        bench()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
