"""``python -m dpviz.app``: an alias of ``python -m dpviz.serve`` (``dpviz serve``), kept for old commands."""
from dpviz.serve.app import *  # noqa: F403

if __name__ == "__main__":
    main()  # noqa: F405
