"""``make bench``'s browser table (benchmarks/redraw.py) replays what the kernel sent, and what it draws is what the
kernel computed: after the recorded updates, each figure in the page holds the x and y of the panel's own final
figure. LearningRatesPanel's updates were once refused by plotly.js (an axis and its type in one update); the
replay reports such refusals, so the table never times an update that drew nothing."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
from test_browser import browser_available  # noqa: F401 (a fixture: skip, or fail in CI)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


def _redraw():
    return importlib.import_module("benchmarks.panels.redraw")


def _same_numbers(drawn, expected) -> bool:
    if expected is None or drawn is None:
        return expected is None and drawn is None
    if len(drawn) != len(expected):
        return False
    for a, b in zip(drawn, expected):
        if isinstance(b, (int, float)) and b is not None:
            if a is None or not math.isclose(a, b, rel_tol=1e-12, abs_tol=0):
                return False
        elif a != b:
            return False
    return True


def _drawn_differences(record: dict, row: dict) -> list[str]:
    """How the replay of ``record`` (its result ``row``) departs from the kernel: updates plotly.js refused, and
    traces whose drawn x or y differ from the panel's final figure."""
    problems = [f"{row['panel']}: plotly.js refused {error}" for error in row["errors"][:1]]
    for k, (drawn, final) in enumerate(zip(row["drawn"], record["final"])):
        if len(drawn) != len(final["data"]):
            problems.append(f"{row['panel']} figure {k}: {len(drawn)} traces drawn, {len(final['data'])} sent")
            continue
        for i, (got, want) in enumerate(zip(drawn, final["data"])):
            for axis in ("x", "y"):
                if not _same_numbers(got[axis], want.get(axis)):
                    problems.append(f"{row['panel']} figure {k} trace {i} {axis}: drawn {str(got[axis])[:80]}, "
                                    f"kernel {str(want.get(axis))[:80]}")
    return problems


def test_replayed_updates_draw_the_panels_final_figures(browser_available):  # noqa: F811
    from dpviz.panels.few_examples import UsersNeededPanel
    from dpviz.panels.items_to_users import GroupPrivacyCostPanel
    from dpviz.panels.learning import LearningRatesPanel

    redraw = _redraw()
    records = [redraw.capture(cls, max_moves=4) for cls in (LearningRatesPanel, GroupPrivacyCostPanel,
                                                           UsersNeededPanel)]
    assert all(len(r["moves"]) == 4 for r in records)
    rows = redraw.replay(records, passes=1)
    for record, row in zip(records, rows):
        assert row["panel"] == record["panel"]
        assert not _drawn_differences(record, row)
        assert len(row["times"]) == 4 and all(t > 0 for t in row["times"])
        # the replay moved the figures: the last move's data differ from the defaults somewhere
        assert any(t.get("y") != f.get("y") for fin, fig in zip(record["final"], record["figures"])
                   for t, f in zip(fin["data"], fig["data"]))


def test_every_panel_sweep_is_drawn_as_the_kernel_computed_it(browser_available):  # noqa: F811
    """Every lesson panel, its first six control changes of make bench's sweep (every control of most panels):
    plotly.js accepts every update and ends on the kernel's figures. (The browser test moves only each panel's
    first control, and only checks that the drawing changed.)"""
    from dpviz.panels.panel import PANEL_REGISTRY

    redraw = _redraw()
    from benchmarks.panels.redraw import import_panels  # make bench's: every panel module, registered

    assert not import_panels()
    classes = [cls for name, cls in sorted(PANEL_REGISTRY.items())
               if cls.__module__.startswith("dpviz.panels.") and not name.startswith("_")]
    assert len(classes) >= 50
    records = [redraw.capture(cls, max_moves=6) for cls in classes]
    problems = [p for record, row in zip(records, redraw.replay(records, passes=1))
                for p in _drawn_differences(record, row)]
    assert not problems, problems[:10]


def test_the_replay_reports_an_update_plotly_refuses(browser_available):  # noqa: F811
    """An update setting an axis and its type together (what sync_figure once sent) is reported, not timed as a
    redraw that happened."""
    redraw = _redraw()
    figure = {"data": [{"type": "scatter", "x": [1, 2], "y": [1, 2]}], "layout": {"yaxis": {"type": "log"}}}
    refused = [[0, "update", [{"y": [[2, 3]]}, {"yaxis": {"type": "log", "range": [0, 1]}, "yaxis.type": "log"},
                              [0]]]]
    accepted = [[0, "update", [{"y": [[3, 4]]}, {"yaxis": {"type": "log", "range": [0, 1]}}, [0]]]]
    rows = redraw.replay([{"panel": "toy", "figures": [figure], "moves": [refused, accepted]}], passes=1)
    assert len(rows[0]["errors"]) == 1 and "parent" in rows[0]["errors"][0]
    assert rows[0]["drawn"][0][0]["y"] == [3, 4]


def test_the_replay_counts_the_moves_plotly_draws_twice_and_applies_steady_margins(browser_available):  # noqa: F811
    """A move whose tick labels outgrow the margins is drawn twice (plotly's automargin refits them and draws the
    figure again); the move back to short labels keeps the margins (the figure module's steady rule, which the
    replay applies) and is drawn once. Without steady both moves are drawn twice."""
    redraw = _redraw()
    layout = {"yaxis": {"tickformat": ",d", "automargin": True}, "margin": {"l": 20, "r": 10, "t": 10, "b": 30}}
    record = {
        "panel": "Toy",
        "figures": [{"data": [{"type": "scatter", "x": [0, 1, 2], "y": [1, 2, 3]}], "layout": layout}],
        "moves": [[[0, "update", [{"y": [[10_000_000, 20_000_000, 30_000_000]]}, {}, [0]]]],
                  [[0, "update", [{"y": [[1, 2, 3]]}, {}, [0]]]]],
    }
    (row,) = redraw.replay([record], passes=1)
    assert not row["errors"]
    assert row["twice"] == [True, False]
