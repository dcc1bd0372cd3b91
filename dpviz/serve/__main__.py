"""``python -m dpviz.serve [options]``: the same as ``dpviz serve [options]``."""

from dpviz.serve.app import main

main()
