"""Build configuration that pyproject.toml cannot express: the lessons ship inside the package.

``notebooks/`` (the lessons, their landing page and ``voila.json``) is installed as the package
``dpviz.lesson_notebooks``, so that a plain ``pip install dpviz`` (not editable) can serve them from any directory
(``dpviz serve``, or Voilà under JupyterHub); an editable install maps the same package name onto the
checkout's ``notebooks/``. Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["dpviz", "dpviz.*"]), "dpviz.lesson_notebooks"],
    package_dir={"dpviz.lesson_notebooks": "notebooks"},
    package_data={"dpviz.lesson_notebooks": ["*.ipynb", "voila.json"],
                  "dpviz.serve": ["templates/dpviz/*.j2", "static/*"], "dpviz.panels": ["figure.js"]},
)
