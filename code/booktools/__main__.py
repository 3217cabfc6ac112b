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
job, so what a chapter's run depends on is what run.py imports.
(Rendering is `python -m booktools.render`.)
"""

import sys
from pathlib import Path


def _executed(chapter):
    """chapters/x-executed.ipynb for chapters/x.qmd (or itself)."""
    from booktools.qmd import EXECUTED, executed_path

    return Path(chapter) if chapter.endswith(EXECUTED) else executed_path(
        chapter)


def main(argv):
    command, args = (argv[0], argv[1:]) if argv else ("", [])
    if command == "execute" and len(args) == 1:
        from booktools.run import ChapterError, execute_chapter

        try:
            execute_chapter(args[0])
        except ChapterError as err:  # the file and the cell say enough
            sys.exit(f"error: {err}")
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
