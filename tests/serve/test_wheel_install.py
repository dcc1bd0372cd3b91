"""dpviz from a wheel (as a JupyterHub image installs it): the lessons ship inside, and the app serves them.

How the installed copy is kept apart from the checkout (the dev ``.venv`` holds an *editable* dpviz: an
``__editable__.dpviz-*.pth`` that installs an import finder mapping ``dpviz`` onto this checkout, and a
``dpviz-*.dist-info``):

1. **The wheel** is built from a copy of the checkout's files (``git ls-files``: tracked and untracked, not
   ignored) in a temporary directory, so the build never writes ``build/`` or ``*.egg-info`` into the shared
   checkout. ``pip wheel --no-deps``; with build isolation (pip fetches ``setuptools>=77`` from its index, usually
   its cache) unless the dev venv's own setuptools is recent enough, then offline with ``--no-build-isolation``.
2. **A fresh virtual environment** (``python -m venv --without-pip``) gets the wheel with
   ``pip --python <fresh> install --no-deps --no-index``: a real, non-editable install in its own site-packages.
3. **The third-party dependencies** are not downloaded again: the fresh venv's site-packages holds a ``.pth``
   naming a *farm* of symlinks to every entry of the dev venv's site-packages *except* dpviz's own (``dpviz*``,
   ``__editable__*``) and the ``.pth`` files. Directories named by a ``.pth`` are plain ``sys.path`` entries (their
   own ``.pth`` files are not run), and the editable finder is neither run nor even present, so the only
   importable dpviz is the wheel's. Jupyter's data files of those dependencies (Voilà's templates, the widget
   labextensions, the ``python3`` kernelspec) live under the dev venv's ``share/jupyter``, named by
   ``JUPYTER_PATH``; the kernelspec's ``python`` means the fresh interpreter, so kernels import the wheel too.
4. The app runs from an unrelated temporary directory with a clean environment (no ``PYTHONPATH``, no user
   site-packages), ``python -m dpviz.serve --no-browser --port <free>``, and is always stopped.

Checked: the wheel holds every ``notebooks/*.ipynb``, ``voila.json`` and every module of the checkout; the fresh
interpreter imports dpviz from the fresh site-packages, never from the checkout, and a lesson's kernel is that
interpreter, in the installed lessons' folder; the landing page lists every lesson; lesson 03 renders with its title.
"""

from __future__ import annotations

import html
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from _server import Client, start_app

from dpviz.lessons import lessons

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DEV_PREFIX = Path(sys.prefix)
LESSON = "03_privacy_loss.ipynb"
_IGNORED = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc",
                                  ".pytest_cache", ".hypothesis", ".ipynb_checkpoints", "test-results")


def _run(cmd: list[str], timeout: float, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} failed ({result.returncode}):\n"
                             f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def _copy_checkout(dest: Path) -> None:
    """The checkout's files as they are now (tracked and untracked, not ignored), without build leftovers."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, timeout=60, check=True,
        ).stdout.decode().split("\0")
    except (OSError, subprocess.SubprocessError):
        shutil.copytree(ROOT, dest, ignore=_IGNORED, symlinks=True)
        return
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():  # a tracked file deleted in the working tree is not built
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def _setuptools_builds_offline() -> bool:
    required = re.search(r"setuptools\s*>=\s*(\d+)", (ROOT / "pyproject.toml").read_text())
    try:
        have = int(importlib.metadata.version("setuptools").split(".")[0])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    return required is not None and have >= int(required[1])


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    src, dist = work / "src", work / "dist"
    _copy_checkout(src)
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-w", str(dist)]
    if _setuptools_builds_offline():
        cmd.append("--no-build-isolation")
    _run([*cmd, str(src)], timeout=300, cwd=work)  # a path, never a bare name pip would look up on its index
    wheels = sorted(dist.glob("dpviz-*.whl"))
    assert len(wheels) == 1, f"expected one dpviz wheel, got {wheels}"
    return wheels[0]


def _dependency_farm(dest: Path) -> Path:
    """Symlinks to the dev venv's site-packages entries, except dpviz's own and the ``.pth`` files (see above)."""
    dest.mkdir()
    sources = {Path(sysconfig.get_path(key)).resolve() for key in ("purelib", "platlib")}
    for site in sorted(sources):
        for entry in sorted(site.iterdir()):
            name = entry.name.lower()
            if name.startswith(("dpviz", "__editable__")) or name.endswith(".pth") or name == "__pycache__":
                continue
            if not (dest / entry.name).exists():
                (dest / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return dest


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> dict:
    """The wheel installed (not editable) in a fresh venv; its interpreter, environment and site-packages."""
    work = tmp_path_factory.mktemp("fresh")
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], timeout=120)
    python = venv / "bin" / "python"
    site = Path(_run([str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                     timeout=60).stdout.strip())
    farm = _dependency_farm(work / "deps")
    (site / "_dpviz_test_dependencies.pth").write_text(f"{farm}\n")

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "JUPYTER", "VIRTUAL_ENV", "PIP_")) and k not in ("DPVIZ_PLOTLY_BUNDLE_URL",)}
    env.update(
        PYTHONNOUSERSITE="1",
        JUPYTER_PATH=str(DEV_PREFIX / "share" / "jupyter"),
        PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
    )
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
          "--disable-pip-version-check", "--no-compile", str(wheel)], timeout=300, cwd=work, env=env)
    return {"python": str(python), "env": env, "site": site.resolve(), "venv": venv, "work": work}


# ---- the wheel's contents -------------------------------------------------------------------------------------------


def test_wheel_holds_every_lesson_notebook_and_voila_json_as_package_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    notebooks = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks, "no notebooks/*.ipynb in the checkout"
    assert {lesson.filename for lesson in lessons()} <= set(notebooks)
    expected = {f"dpviz/lesson_notebooks/{name}" for name in [*notebooks, "voila.json", "__init__.py"]}
    missing = expected - names
    assert not missing, f"the wheel lacks {sorted(missing)}"


def test_wheel_holds_every_module_of_the_checkout_and_nothing_else(wheel):
    """A subpackage without ``__init__.py`` (which find_packages skips) would be missing from a real install."""
    names = {n for n in zipfile.ZipFile(wheel).namelist() if not n.endswith("/")}
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "dpviz").rglob("*.py") if "__pycache__" not in p.parts}
    assert modules, "no modules found in the checkout"
    missing = modules - names
    assert not missing, f"the wheel lacks {sorted(missing)}"
    tops = {n.split("/", 1)[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"dpviz"}, f"unexpected top-level entries: {tops}"


# ---- the installed package -------------------------------------------------------------------------------------------

_WHERE = """
import importlib.metadata, importlib.util, json, sys
import dpviz, dpviz.lessons
dists = list(importlib.metadata.distributions(name="dpviz"))
print(json.dumps({
    "file": dpviz.__file__,
    "notebooks": str(dpviz.lessons.NOTEBOOK_DIR),
    "lessons": [lesson.filename for lesson in dpviz.lessons.lessons()],
    "path": sys.path,
    "finders": [type(f).__module__ + "." + type(f).__qualname__ for f in sys.meta_path]
               + [getattr(f, "__name__", repr(f)) for f in sys.meta_path],
    "dists": [str(d.locate_file("")) for d in dists],
    "direct_url": [d.read_text("direct_url.json") for d in dists],
}))
"""


def _under(path: str | Path, root: Path) -> bool:
    return Path(path).resolve().is_relative_to(root.resolve())


def test_installed_dpviz_is_the_wheel_not_the_checkout(installed, tmp_path):
    out = _run([installed["python"], "-c", _WHERE], timeout=120, cwd=tmp_path, env=installed["env"]).stdout
    where = json.loads(out.strip().splitlines()[-1])
    site = installed["site"]
    assert _under(where["file"], site), f"dpviz imported from {where['file']}, not from {site}"
    assert not _under(where["file"], ROOT)
    assert _under(where["notebooks"], site) and not _under(where["notebooks"], ROOT), where["notebooks"]
    assert where["lessons"] == [lesson.filename for lesson in lessons()]
    assert not [p for p in where["path"] if p and _under(p, ROOT)], f"the checkout is on sys.path: {where['path']}"
    assert not [f for f in where["finders"] if "editable" in f.lower()], f"an editable finder: {where['finders']}"
    assert len(where["dists"]) == 1 and _under(where["dists"][0], site), f"dpviz distributions: {where['dists']}"
    assert '"editable": true' not in (where["direct_url"][0] or ""), "installed as editable"




def test_installed_app_serves_the_landing_page_and_a_lesson_from_any_directory(installed, tmp_path):
    app = start_app(tmp_path, "--no-browser", "--pool_size=0", "--shutdown-grace=300",
                    python=installed["python"], env=installed["env"])
    try:
        client = Client(app.url)
        status, body = client.request("/")  # redirected to the landing page
        assert status == 200, f"landing page: HTTP {status}: {body[:300]}"
        for lesson in lessons():
            assert f"href='{lesson.filename}'" in body, f"the landing page does not link {lesson.filename}"
            assert html.escape(lesson.title) in body, f"the landing page does not name {lesson.title!r}"

        status, body = client.request(f"/voila/render/{LESSON}")
        assert status == 200, f"{LESSON}: HTTP {status}: {body[:300]}"
        title = next(lesson.title for lesson in lessons() if lesson.filename == LESSON)
        assert title in html.unescape(body), f"{LESSON} rendered without its title {title!r}"
        for marker in ("Traceback", "There was an error when executing cell"):
            assert marker not in body, f"{LESSON} rendered with {marker!r}"

        # The lesson's kernel runs the wheel's dpviz too: the fresh interpreter (whose sys.path is checked above),
        # in the installed lessons' folder, without PYTHONPATH. (Voila's kernel WebSocket refuses execute_request
        # from a page, so the kernel cannot simply be asked.)
        kernels = app.kernel_processes()
        assert kernels, "no kernel process under the app"
        for kernel in kernels:
            assert kernel.cmdline()[0] == installed["python"], f"kernel interpreter: {kernel.cmdline()}"
            cwd = Path(f"/proc/{kernel.pid}/cwd").resolve()
            assert _under(cwd, installed["site"]), f"kernel working directory {cwd}"
            environ = Path(f"/proc/{kernel.pid}/environ").read_bytes().split(b"\0")
            assert not [e for e in environ if e.startswith(b"PYTHONPATH=")], "the kernel has a PYTHONPATH"
    finally:
        app.stop()
    log = app.log()
    assert str(ROOT / "notebooks") not in log and str(ROOT / "dpviz") not in log, \
        "the installed app used the checkout:\n" + log[-3000:]
