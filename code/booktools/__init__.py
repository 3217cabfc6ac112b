"""Build tooling for the book: read the .qmd chapters, execute them once,
export what Quarto, readers and instructors need, and time the build.

The teaching code that the chapters run is the package `backprop`.
"""
