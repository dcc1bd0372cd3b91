"""Named computations of each topic (``CASES``), timed by ``make bench``."""
