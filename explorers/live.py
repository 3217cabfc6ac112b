"""Runs a live cell of the book's pages in Pyodide (explorers/live.js).

Like a notebook cell: the statements run in the page's one namespace,
and the value of a last bare expression is shown by its repr. The text
returned is what the cell printed, or its traceback, trimmed to the
reader's own lines.
"""

import ast
import contextlib
import io
import traceback

NAMESPACE = {"__name__": "__main__"}


def run(source, namespace=NAMESPACE):
    """Run one cell's source; return (ok, text it printed)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            tree = ast.parse(source, "<cell>")
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            exec(compile(tree, "<cell>", "exec"), namespace)
            if last is not None:
                value = eval(compile(last, "<cell>", "eval"), namespace)
                if value is not None:
                    print(repr(value))
        except BaseException as error:  # the reader's error, shown as text
            if isinstance(error, SyntaxError):  # where, with a caret
                lines = traceback.format_exception_only(error)
            else:  # the cell's frames and below, not this function's
                lines = traceback.format_exception(
                    error, error, error.__traceback__.tb_next)
            print("".join(lines), end="")
            return False, out.getvalue()
    return True, out.getvalue()
