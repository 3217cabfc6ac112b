"""python -m booktools bench: a build from clean, timed against Quarto's
floor (bench.py). The build itself is `python -m booktools.render`,
which `make` runs."""

import sys


def main(argv):
    if argv == ["bench"]:
        from booktools.bench import bench

        bench()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
