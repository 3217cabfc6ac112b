"""Citations as the site prints them, for the student notebooks, which
have no citation processor: "(Griewank and Walther 2008)" for [@key].
(Pandoc's citeproc would too, but it rewrites a notebook's "- (a)"
choices as maths.)"""

import re

from booktools import ROOT


def _authors(entry):
    """'Griewank and Walther', 'He et al.': as the site cites them."""
    names = [n.split(",")[0].strip(" {}") for n in
             re.split(r"\s+and\s+", entry.get("author", entry.get(
                 "editor", "Anonymous")))]
    names = [n.split()[-1] if "," not in n and " " in n else n
             for n in names]
    if len(names) > 2:
        return f"{names[0]} et al."
    return " and ".join(names)


def bibliography(path=ROOT / "references.bib"):
    """{key: (authors, year)} of the book's references."""
    import bibtexparser

    entries = bibtexparser.loads(path.read_text()).entries
    return {e["ID"]: (_authors(e), e.get("year", "n.d.")) for e in entries}


def cite(text, refs=None):
    """Citations as text, "(Griewank and Walther 2008)" for [@key] and
    "Griewank and Walther (2008)" for @key, as the site shows them."""
    refs = bibliography() if refs is None else refs

    def group(match):
        keys = re.findall(r"@([\w-]+)", match.group(1))
        return "(" + "; ".join(f"{refs[k][0]} {refs[k][1]}" for k in keys
                               if k in refs) + ")"

    text = re.sub(r"\[((?:-?@[\w-]+[;\s]*)+)\]", group, text)
    return re.sub(r"(?<![\w@])@([\w-]+)\b",
                  lambda m: (f"{refs[m[1]][0]} ({refs[m[1]][1]})"
                             if m[1] in refs else m[0]), text)
