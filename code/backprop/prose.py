"""Numbers formatted for the prose, through inline `{python}` expressions.

Each helper returns a Prose string: plain Unicode text, for f-strings,
alt text and the slides. An inline expression shows its Markdown, which
is the same text, except for sci, whose power of ten Markdown shows as
maths ($3.7 \times 10^{-9}$), in the page, the PDF and the notebooks
alike. In alt text, write `{python} str(sci(x))`: the plain text.
"""

import math

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


class Prose(str):
    """A str that displays without quotes."""

    def __repr__(self):
        return str(self)

    def _repr_markdown_(self):  # the same text if markdown is preferred
        return str(self)


class Maths(Prose):
    """Prose that Markdown shows as inline maths."""

    def _repr_markdown_(self):
        return f"${self}$"


def maths(name, value):
    """name = value as inline maths: maths("w", -1.5) shows $w = -1.5$."""
    return Maths(f"{name} = {float(value):g}")


def vector(values, digits=None):
    """Entries in brackets, as text: vector([0.5, -1], 1) shows '(0.5, −1.0)'.
    digits=None: each as short as it is, vector([2.0, -1.0]) shows '(2, −1)'.
    The spaces do not break, so that a line never ends inside the
    brackets."""
    shown = [f"{float(x):g}" if digits is None else f"{float(x):.{digits}f}"
             for x in values]
    return Prose("(" + ",\N{NO-BREAK SPACE}".join(shown).replace("-", "−")
                 + ")")


def joined(items, separator):
    """Items as text with a separator: joined([8, 16], " or ") == '8 or 16'."""
    return Prose(separator.join(str(item) for item in items))


def fixed(x, digits=2):
    """x with a fixed number of decimals: fixed(0.25) == '0.25'."""
    return Prose(f"{float(x):.{digits}f}".replace("-", "−"))


def significant(x, digits=3):
    """x to a number of significant digits: significant(-0.07314) ==
    '−0.0731'."""
    return Prose(f"{float(x):.{digits}g}".replace("-", "−"))


def count(n):
    """An integer with thousands separators: count(4096) == '4,096'."""
    return Prose(f"{int(n):,}")


class Sci(Prose):
    """Scientific notation: Unicode as text, maths as Markdown."""

    def __new__(cls, text, tex=None):
        made = super().__new__(cls, text)
        made.markdown = f"${tex}$" if tex else str(text)  # for tables too
        return made

    def _repr_markdown_(self):
        return self.markdown


def sci(x, digits=2):
    """x in scientific notation: sci(3.7e-9, 1) == '3.7 × 10⁻⁹', which
    Markdown shows as $3.7 \\times 10^{-9}$."""
    x = float(x)
    if x == 0:
        return Sci("0")
    exponent = math.floor(math.log10(abs(x)))
    mantissa = x / 10**exponent
    if round(abs(mantissa), digits) >= 10:  # 9.999 rounds up to 10.00
        mantissa, exponent = mantissa / 10, exponent + 1
    power = str(exponent).translate(_SUPERSCRIPT)
    sign, shown = "−" if mantissa < 0 else "", f"{abs(mantissa):.{digits}f}"
    return Sci(f"{sign}{shown} × 10{power}",
               f"{sign and '-'}{shown} \\times 10^{{{exponent}}}")
