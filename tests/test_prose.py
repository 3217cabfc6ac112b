"""The formatting helpers used by inline expressions in the prose."""

from backprop.prose import count, fixed, joined, sci, significant


def test_sci():
    assert sci(3.7e-9, 1) == "3.7 × 10⁻⁹"
    assert sci(169181.6) == "1.69 × 10⁵"
    assert sci(-0.0123, 1) == "−1.2 × 10⁻²"
    assert sci(9.999e-3) == "1.00 × 10⁻²"  # rounding carries the exponent
    assert sci(0) == "0"
    # what an inline expression shows is Markdown: the power as maths
    assert sci(3.7e-9, 1)._repr_markdown_() == "$3.7 \\times 10^{-9}$"
    assert sci(-0.0123, 1).markdown == "$-1.2 \\times 10^{-2}$"
    assert sci(0).markdown == "0"


def test_fixed_and_count():
    assert fixed(0.25) == "0.25"
    assert fixed(-3.0, 1) == "−3.0"  # a true minus sign
    assert count(4096) == "4,096"


def test_repr_has_no_quotes():
    # inline `{python}` shows the repr; the reader must not see quotes
    assert repr(count(4096)) == "4,096"


def test_joined_reads_without_quotes():
    assert repr(joined([8, 16], " or ")) == "8 or 16"
    assert joined([fixed(6, 0), fixed(24, 0)], " + ") == "6 + 24"


def test_significant_digits():
    assert significant(-0.0731401) == "−0.0731"
    assert significant(-0.146280) == "−0.146"
    assert significant(123456, 2) == "1.2e+05"  # as Python's g writes it
