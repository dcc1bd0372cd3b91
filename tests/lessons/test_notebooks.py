"""Every notebook executes top to bottom, is stored without outputs, and stays thin (prose + one-line cells)."""

import json
from pathlib import Path

import pytest
from _kernels import ipc_connection

from dpviz.lessons import NOTEBOOK_DIR, lessons

NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
MAX_CODE_LINES = 3  # a code cell creates and shows panels; logic belongs in dpviz/


def _cells(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _src(cell) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def test_there_are_lessons_and_a_landing_page():
    names = {p.name for p in NOTEBOOKS}
    assert "index.ipynb" in names
    assert any(lesson.filename == "03_privacy_loss.ipynb" for lesson in lessons())


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path):
    for cell in _cells(path):
        if cell["cell_type"] == "code":
            assert not cell.get("outputs"), f"{path.name}: stored with outputs (run make clean-notebooks)"
            assert cell.get("execution_count") is None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_code_cells_are_thin(path):
    for i, cell in enumerate(_cells(path)):
        if cell["cell_type"] != "code":
            continue
        lines = [ln for ln in _src(cell).splitlines() if ln.strip() and not ln.strip().startswith("#")]
        assert len(lines) <= MAX_CODE_LINES, f"{path.name} cell {i}: {len(lines)} lines; move logic into dpviz/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_prose(path):
    words = sum(len(_src(c).split()) for c in _cells(path) if c["cell_type"] == "markdown")
    assert words >= (60 if path.name == "index.ipynb" else 300), f"{path.name}: only {words} words of prose"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_top_to_bottom(path):
    import nbclient
    import nbformat
    from traitlets.config import Config

    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}},
        config=Config({"KernelManager": ipc_connection()}),
    )
    client.execute()  # raises CellExecutionError on any failing cell
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.get("output_type") != "error", f"{path.name}: {out.get('ename')}: {out.get('evalue')}"
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                assert "Traceback" not in out.get("text", ""), out.get("text")
