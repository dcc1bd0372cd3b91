"""The tree is clean under ruff (rules in pyproject.toml: pyflakes, pycodestyle, import order, bugbear, numpy)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_finds_nothing():
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "concise", "--no-cache",
                          "dpviz", "tests", "benchmarks"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_ruff_sees_a_violation(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nimport numpy as np\nx = np.random.rand(3)\n")
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "concise", "--no-cache",
                          "--config", str(ROOT / "pyproject.toml"), str(bad)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 1 and "F401" in out.stdout and "NPY002" in out.stdout
