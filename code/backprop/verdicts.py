"""The verdicts of the exercises' checks (checks*.py): what is right
already and what is not yet, without the solution. A check yields
(passed, sentence) lines; @check makes it return a Verdict. Here too:
the one rule of significant digits (to_digits, graded). Pure Python: it
runs in the page.
"""

import functools
import math
import random
import traceback
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent  # this package's files


class NotYet(Exception):
    """Stops a check early: the answer is missing, or cannot be used."""


RIGHT = "right: every check passes"  # how a right answer's verdict begins


class Verdict:
    """The outcome of a check: ok, and (passed, sentence) lines."""

    def __init__(self, ok, lines, reason=""):
        self.ok, self.lines, self.reason = ok, lines, reason

    def __str__(self):
        if not self.lines:
            return f"not yet: {self.reason}"
        passed = sum(ok for ok, _ in self.lines)
        head = (RIGHT if self.ok else
                f"not yet: {passed} of {len(self.lines)} checks pass")
        return "\n".join([head] + [f"  {'✓' if ok else '✗'} {text}"
                                   for ok, text in self.lines])

    __repr__ = __str__  # a check cell shows this message, and only this


def check(body):
    """Turn a generator of (passed, sentence) lines into a check that
    returns a Verdict. A NotYet raised on the way ends the list."""
    @functools.wraps(body)
    def run(*args, **kwargs):
        lines = []
        try:
            lines.extend(body(*args, **kwargs))
        except NotYet as stop:
            lines.append((False, str(stop)))
        except Exception as error:  # an answer of an unexpected shape
            lines.append((False, "your answer could not be checked: "
                          f"{type(error).__name__}: {error}"))
        if len(lines) == 1 and not lines[0][0]:
            return Verdict(False, [], lines[0][1])
        return Verdict(all(ok for ok, _ in lines), lines)
    return run


def attempt(what, f, *args):
    """f(*args), or NotYet with a sentence instead of a traceback: the
    error, and the line of the reader's code that it came from."""
    try:
        return f(*args)
    except Exception as error:
        raise NotYet(f"{what} raised {type(error).__name__}: {error}"
                     f"{where(error)}") from None


def where(error):
    """', at line N of your cell' for the innermost line that raised the
    error outside this package (the engine included), or ''."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if not Path(frame.filename).resolve().is_relative_to(HERE)
              and not {"site-packages", "dist-packages"} & set(
                  Path(frame.filename).parts)]  # torch's own lines too
    if not frames:
        return ""
    line = (frames[-1].line or "").strip()
    return f", at line {frames[-1].lineno} of your cell" + (
        f": {line}" if line else "")


def call(what, f, *args):
    """attempt(), and NotYet while f returns nothing yet."""
    result = attempt(what, f, *args)
    if result is None:
        raise NotYet(f"{what} returns None: write it first")
    return result


def given(what, value):
    """A number the student wrote, or NotYet while it is missing."""
    if value is None:
        raise NotYet(f"{what} is None: put your number in its place")
    if isinstance(value, bool):
        raise NotYet(f"{what} is {value}, not a number")
    if isinstance(value, tuple) and len(value) == 1:
        raise NotYet(f"{what} is {value!r}: the comma after the number "
                     "makes it a tuple; drop the comma")
    if isinstance(value, tuple) or (isinstance(value, str) and "," in value):
        raise NotYet(f"{what} is {value!r}: in Python a comma separates "
                     "values; write a decimal point, as in 0.25")
    if isinstance(value, str):  # the minus sign the book prints, or a dash
        value = value.replace("\u2212", "-").replace("\u2013", "-")
    try:
        x = float(value)  # a tensor of one number is one too
    except (TypeError, ValueError):
        raise NotYet(f"{what} is a {type(value).__name__}, not a number"
                     ) from None
    except OverflowError:
        raise NotYet(f"{what} is too large for a float") from None
    if "float32" in str(getattr(value, "dtype", "")):  # 7 digits: as typed
        x = float(f"{x:.7g}")
    if not math.isfinite(x):
        raise NotYet(f"{what} is {x}, not a finite number")
    return x


def central_difference(f, x, h=1e-6):
    """(f(x + h) - f(x - h)) / 2h: the slope of f at x, to O(h^2)."""
    return (f(x + h) - f(x - h)) / (2 * h)


def close(got, want, rel=1e-6, tol=1e-9):
    return (math.isfinite(got) and math.isfinite(want)
            and abs(got - want) <= tol + rel * abs(want))


def number(x):
    return f"{x:.6g}"


def _written(x):
    """x as written, its repr, as a Decimal: -0.0731, not the binary
    float's exact value."""
    return Decimal(repr(float(x)))


def significant(x):
    """Significant digits of x as written: 3 for -0.0731, 1 for 100.0."""
    return len(_written(x).normalize().as_tuple().digits)


def _rounded(x, digits):
    """x as written to `digits` significant digits, half away from zero,
    as a Decimal; again if that carried: 0.09996 is 0.100."""
    d = _written(x)
    for _ in range(2):
        d = d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1),
                       ROUND_HALF_UP)
    return d


def rounds_to(x, digits=3):
    """x rounded to `digits` significant digits, half away from zero, and
    written with all of them: -0.0730."""
    return f"{float(_rounded(x, digits)):#.{digits}g}"


def _rounding(x):
    """' (it rounds to -0.0732)', for x of more than three digits."""
    return f" (it rounds to {rounds_to(x)})" if significant(x) > 3 else ""


def digits_hint(x, said):
    """What to say to x, as to_digits (three digits) finds it."""
    if said == "right":
        return "right to three significant digits" + _rounding(x)
    return "close, but not to three significant digits" + (
        f": {x} is the answer to fewer digits; give three" if said ==
        "fewer" else _rounding(x))


def matches(x, value, fewest=2):
    """Whether value, rounded to as many significant digits as x is
    written with, is x: -0.148 matches -0.14799, -0.1480 does not. Fewer
    than `fewest` digits name no slip: -0.1 would match almost anything."""
    return (math.isfinite(value) and value != 0
            and significant(x) >= fewest
            and _rounded(value, significant(x)) == _written(x))


def half_unit(x):
    """Half a unit of the last digit x is written with: 5e-05 for -0.0731."""
    return 0.5 * 10.0 ** _written(x).normalize().as_tuple().exponent


def to_digits(x, want, digits=3, units=3):
    """How x, as written, stands to want, the exact answer, at `digits`
    significant digits. The one rule: x is right when x rounded to
    `digits` significant digits (half away from zero) is want rounded
    so; more digits are judged only through their rounding, so -0.07306
    is right for -0.07314 and -0.07315 (-0.0732) is not. 'fewer': x is
    want to fewer digits. 'rounding': x rounded is off want rounded by
    `units` units of the last digit at most, either way. Else None."""
    if not close(x, want, 0.5):
        return None
    answer, mine = _rounded(want, digits), _rounded(x, digits)
    if mine == answer:
        return "right"
    k = significant(x)
    if k < digits and _written(x) == _rounded(want, k):
        return "fewer"
    unit = Decimal(1).scaleb(answer.adjusted() - digits + 1)
    return "rounding" if abs(mine - answer) <= units * unit else None


def graded(name, got, want, slips=()):
    """(passed, sentence) for one number, by to_digits. slips: (value,
    what to say), the wrong sign added; a value names its slip at any
    digits, or exactly (to float32's rounding) even at fewer digits."""
    got = given(name, got)
    said = to_digits(got, want)
    slips = [(-want, "it has the wrong sign"), *slips] if want else slips
    # a slip's value itself, even where it rounds right; two that give
    # the same value are both named, two that merely round alike neither
    exact = "; or ".join(dict.fromkeys(
        say for value, say in slips if close(got, value, 1e-6, tol=0)))
    near = list(dict.fromkeys(say for value, say in slips
                              if matches(got, value, fewest=1)))
    slip = exact or (near[0] if len(near) == 1 else None)
    return said == "right", f"{name} = {got} is " + (
        digits_hint(got, said) if said == "right" else
        f"not right yet: {exact} (or, if it is the answer rounded, give "
        "three significant digits)" if exact and said == "fewer" else
        digits_hint(got, said) if said == "fewer" else
        f"not right yet: {slip}" if slip else
        digits_hint(got, said) if said else "not right yet")


def drawn(fixed, low, high, n=9, seed=6050):
    """The points fixed, then n drawn from U(low, high), seeded, to three
    decimals: a reply right at the fixed ones only fails at the rest."""
    rng = random.Random(seed)
    return tuple(fixed) + tuple(round(rng.uniform(low, high), 3)
                                for _ in range(n))
