"""Repair a rendered site: what Quarto's template writes that the book
does not want, done once over the finished folder.

    python code/booktools/postrender.py [SITE]     # default: _book

render.py runs fix_site() once the site, the PDF and the slides are all
in place. For a plain `quarto render`, register it as a post-render
script (Quarto 1.10 runs a .py one with its Python, in the project's
folder, and names the output folder in QUARTO_PROJECT_OUTPUT_DIR):

    project:
      post-render: code/booktools/postrender.py

render.py's own Quarto runs set BOOKTOOLS_RENDER, and then the script
does nothing: their output is not the finished site yet (the PDF and
the slides are built beside it). The standard library only, so that
any Python can run it. It also puts the live cells' Python into the
site (live.py).
"""

import os
import posixpath
import re
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script, by Quarto
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from booktools import live  # noqa: E402 (after the path, as a script)

# A download the site links (a PDF, the zip, the slides), from its
# root: a build may leave one out (the handouts need a browser; `make
# html` makes no PDF), and then its links go. A missing page is an error.
DOWNLOAD = re.compile(r"\.(?:pdf|zip)$|^slides/")

# Pandoc gives every line of highlighted code an empty, hidden link to
# itself, for line numbers that this book never shows: about 70 bytes a
# line, a tenth of a chapter page. Nothing on the page uses them.
LINE_ANCHOR = re.compile(
    r'<a href="#cb\d+-\d+" aria-hidden="true" tabindex="-1"></a>')
# A link (no nesting in HTML), alone in a list item, or anywhere.
ONE = r"<a\b([^>]*)>((?:(?!</a>).)*)</a>"
ITEM = re.compile(r"<li\b[^>]*>\s*" + ONE + r"\s*</li>\s*", re.S)
LINK = re.compile(r"([ \t]*)" + ONE + r"(\n?)", re.S)
HREF = re.compile(r'\bhref="([^"]*)"')
HREF_ATTRS = re.compile(r"<a\b([^>]*)>")
NOTE = re.compile(r'<div class="download-note">(?:(?!</div>).)*</div>\s*',
                  re.S)
EMPTY_LINKS = re.compile(r'<div class="quarto-other-links">\s*<h2>[^<]*'
                         r"</h2>\s*<ul>\s*</ul>\s*</div>")
# The light and dark stylesheets are <link>s under one id each; the
# theme switch finds them by it. Both move to data-sheet.
SHEETS = "quarto-bootstrap|quarto-text-highlighting-styles"
SHEET_ID = re.compile(rf'(<link\b[^>]*?)\bid="({SHEETS})"')
SHEET_JS = [(re.compile(rf"\blink#({SHEETS})\b"), r"link[data-sheet=\1]"),
            (re.compile(rf"\.id === \"({SHEETS})\""),
             r'.dataset.sheet === "\1"')]
SHEET_LEFT = re.compile(rf"#({SHEETS})\b|\.id\s*===?\s*[\"']({SHEETS})"
                        rf"|getElementById\([\"']({SHEETS})")
CHARSET = re.compile(r'\s*<meta charset="utf-8">', re.I)
# Pandoc's MathML carries each formula's TeX source as an annotation,
# which the page never shows, in a <semantics> wrapper that is then
# empty of meaning, and names the MathML namespace, which an HTML page
# implies: together a fifth of a chapter page's weight.
TEX = re.compile(r'<annotation encoding="application/x-tex">.*?'
                 r'</annotation>|</?semantics>|'
                 r' xmlns="http://www\.w3\.org/1998/Math/MathML"', re.S)

# A callout's title is one big toggle: a cross-reference link inside it
# ("Solution to Exercise 1.1", site/solution.lua) would be a control
# inside a control, and takes the link colour on the title's tint. The
# title keeps the words, without the link.
TITLE = re.compile(r'(<div class="callout-title-container[^"]*">)(.*?)'
                   r"(</div>)", re.S)
XREF = re.compile(r'<a\b[^>]*\bclass="quarto-xref"[^>]*>(.*?)</a>', re.S)


def fix_site(site):
    """Repair every page of the rendered site in place (Reveal.js decks
    get only fix_deck). Safe to run twice."""
    site = Path(site)
    note = live.install(site)  # before the pages: it may edit them
    if note:
        print(note, file=sys.stderr)
    files = (path.relative_to(site).as_posix() for path in site.rglob("*"))
    present = {name for name in files if DOWNLOAD.search(name)}
    for page in site.rglob("*.html"):
        if "site_libs" in page.relative_to(site).parts:
            continue
        text = page.read_text(encoding="utf-8")
        if 'class="reveal"' in text:
            fixed = fix_deck(text)
        else:
            where = page.parent.relative_to(site).as_posix()
            fixed = fix_page(text, where, present)
        if fixed != text:
            page.write_text(fixed, encoding="utf-8")


def fix_page(text, where, present):
    """One page of the book, in the folder `where` of the site (a posix
    path, "." at the root), with the downloads that exist."""
    text = LINE_ANCHOR.sub("", text)
    text = TEX.sub("", text)
    text = drop_missing_links(text, where, present)
    text = unique_sheet_ids(text)
    return TITLE.sub(lambda m: m.group(1) + XREF.sub(r"\1", m.group(2))
                     + m.group(3), text)


def drop_missing_links(text, where, present):
    """Remove every link to a download that is not in `present`: a list
    item or sidebar tool that is only that link goes whole; in running
    text the link's words stay. A list left empty goes too."""
    def absent(attrs):
        href = HREF.search(attrs)
        target = href and site_path(href.group(1), where)
        return bool(target and DOWNLOAD.search(target)) and (
            target not in present)

    text = ITEM.sub(lambda m: "" if absent(m.group(1)) else m.group(0),
                    text)
    # a note about downloads (::: {.download-note}) goes whole if one of
    # them is missing: its sentences would promise what is not there
    text = NOTE.sub(lambda m: "" if any(absent(a) for a in HREF_ATTRS
                                        .findall(m.group(0))) else m.group(0),
                    text)

    def unlink(m):
        indent, attrs, words, newline = m.groups()
        if not absent(attrs):
            return m.group(0)
        if "quarto-navigation-tool" in attrs:  # an icon: nothing stays
            return ""
        return indent + words + newline

    return EMPTY_LINKS.sub("", LINK.sub(unlink, text))


def site_path(href, where):
    """The file an href names, from the site's root, or None when it
    leaves the site (another origin, a fragment, a parent folder)."""
    href = href.split("#")[0].split("?")[0]
    if not href or re.match(r"[a-z][a-z0-9+.-]*:|//", href, re.I):
        return None
    path = (posixpath.normpath(href.lstrip("/")) if href.startswith("/")
            else posixpath.normpath(posixpath.join(where, href)))
    return None if path.startswith("..") else path


def unique_sheet_ids(text):
    """The theme stylesheets found by data-sheet instead of a shared id.
    A page whose scripts find them some other way is left as it was, so
    that the theme switch keeps working."""
    fixed = SHEET_ID.sub(r'\1data-sheet="\2"', text)
    for pattern, replacement in SHEET_JS:
        fixed = pattern.sub(replacement, fixed)
    return text if SHEET_LEFT.search(fixed) else fixed


def fix_deck(text):
    """A Reveal.js deck: its charset declared first in <head>, within
    the 1024 bytes a browser reads for it (Quarto inlines scripts in
    front of it when it embeds resources)."""
    match = CHARSET.search(text)
    head = text.find("<head>")
    if match is None or head < 0 or match.start() < 1024:
        return text
    text = text[:match.start()] + text[match.end():]
    at = head + len("<head>")
    return text[:at] + '\n<meta charset="utf-8">' + text[at:]


def main(argv):
    if os.environ.get("BOOKTOOLS_RENDER"):
        return  # render.py repairs the finished site itself
    site = (argv[0] if argv else
            os.environ.get("QUARTO_PROJECT_OUTPUT_DIR", "_book"))
    fix_site(site)


if __name__ == "__main__":
    main(sys.argv[1:])
