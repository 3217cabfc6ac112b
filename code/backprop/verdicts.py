"""The verdicts of the exercises' checks (checks.py, checks_torch.py):
one message for a student working alone, which says what is right
already and what is not yet, without the solution. A check is a
generator of (passed, sentence) lines, made into a function that returns
a Verdict by @check. Pure Python, so that it also runs in the page.
"""

import functools
import math
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
              if not Path(frame.filename).resolve().is_relative_to(HERE)]
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
    if isinstance(value, str):  # the minus sign the book prints, too
        value = value.replace("\u2212", "-")
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


def _rounded(x, digits):
    """x as written (its repr) to `digits` significant digits, half away
    from zero, as a Decimal; again if that carried: 0.09996 is 0.100."""
    d = Decimal(repr(x))
    for _ in range(2):
        d = d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1),
                       ROUND_HALF_UP)
    return d


def to_digits(x, want, digits=3):
    """'right', 'rounding' or None: how x, as written, stands to want,
    the exact answer, at `digits` significant digits. Right: x rounds to
    want's correctly rounded answer, or gives more digits, all right.
    Rounding: x is off that answer by three units of its last digit at
    most, either way, or is want to fewer digits."""
    if not close(x, want, 0.5):
        return None
    answer, mine = _rounded(want, digits), _rounded(x, digits)
    written = Decimal(repr(x))
    if mine == answer or (len(written.as_tuple().digits) > digits and abs(
            written - Decimal(repr(want))) * 2 <= Decimal(1).scaleb(
            written.as_tuple().exponent)):
        return "right"
    unit = Decimal(1).scaleb(answer.adjusted() - digits + 1)
    fewer = any(x == float(f"{want:.{k}g}") for k in range(1, digits))
    return "rounding" if fewer or abs(mine - answer) <= 3 * unit else None
