shared = 6 * 7  # an included file, executed where it is included
