"""The lessons, shipped inside dpviz as the package ``dpviz.lesson_notebooks`` (see setup.py); no Python here."""
