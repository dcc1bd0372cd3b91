"""User-level differential privacy with few examples per user (Ghazi et al. 2023, NeurIPS 2023).

Core numerics only (numpy/scipy). Modules:

* :mod:`dpviz.userlevel.data` — :class:`UserDataset`, item-level and user-level neighbours (Definitions 1–2).
* :mod:`dpviz.userlevel.baselines` — contribution bounding and its bias, the group-privacy lift (Lemma 6).
* :mod:`dpviz.userlevel.bounding` — lesson 11's models: heavy-tailed counts and the bias/noise/RMSE of contribution
  bounding for every bound k at once.
* :mod:`dpviz.userlevel.ptr` — κ, TDLap (Definition 8), hockey-stick / ≈_{ε,δ}, LDDP (Definition 16), DelStab
  (Algorithm 1, Lemma 18) on an exact toy, subsampling (Theorem 7), the exact swap-loss pmf of "why √m".
* :mod:`dpviz.userlevel.bounds` — Theorems 4, 10, 11, Corollary 3, Observation 28, Tables 1–2, breakpoints, crossover,
  regime breakpoints of any table row.
* :mod:`dpviz.userlevel.learners` — the pure-DP learners of Theorems 4, 37, 40, 41 and 43 (Section 4, Appendix E),
  the exact pairwise-sum law and the clipping trade-off of ClippedPairwiseEM (Appendix E.1).

Every public function answers bad input with a ValueError (TypeError for a wrong Python type) naming the parameter
and its range, and refuses any size beyond the caps of :mod:`dpviz.userlevel.data` (users, examples, cells, work,
κ, grid, cover, …) before allocating. Privacy parameters come from public inputs only: e.g. the Scheffé clip τ needs
a public ``tau`` or ``m`` for ragged data (``tests/numerics/test_userlevel_neighbours.py`` checks every algorithm with
exact probabilities against ragged neighbours).
"""

from .baselines import (
    bounding_tradeoff,
    contribution_bound,
    group_privacy_item_budget,
    group_privacy_lift,
    truncation_bias,
)
from .bounding import (
    BoundingTradeoff,
    bounding_curves,
    int_log_grid,
    sample_counts,
)
from .bounds import (
    TABLE1_ROWS,
    TABLE2_ROWS,
    BoundRow,
    breakpoints,
    conjectured_item_epsilon,
    corollary3_users,
    crossover_group_privacy,
    group_privacy_users,
    item_level_users,
    observation28_bounds,
    regime_breakpoints,
    theorem4_users,
    theorem10_item_delta,
    theorem10_item_epsilon,
    theorem10_users,
    theorem11_users,
)
from .data import UserDataset
from .learners import (
    ClippedPairwiseEM,
    ClippingTradeoff,
    Selection,
    ThresholdClass,
    agnostic_pac_learner,
    clipping_tradeoff,
    discrete_cover,
    learn_distribution_cover,
    pac_scores,
    pairwise_sum_pmf,
    paper_tau,
    realizable_pac_learner,
    scheffe_selection,
    simulate_threshold_learning,
)
from .ptr import (
    BOTTOM,
    DelStab,
    DelStabParameters,
    NoisySum,
    approx_eq,
    delstab_parameters,
    discard_curves,
    hockey_stick,
    is_lddp,
    kappa,
    pmf_quantile,
    subsample_users,
    subsampling_amplification,
    swap_difference_pmf,
    tdlap_pmf,
    tdlap_sample,
)

__all__ = [
    # data
    "UserDataset",
    # baselines
    "contribution_bound",
    "truncation_bias",
    "bounding_tradeoff",
    "group_privacy_lift",
    "group_privacy_item_budget",
    # bounding (lesson 11)
    "int_log_grid",
    "sample_counts",
    "BoundingTradeoff",
    "bounding_curves",
    # ptr
    "kappa",
    "tdlap_pmf",
    "tdlap_sample",
    "DelStabParameters",
    "delstab_parameters",
    "hockey_stick",
    "approx_eq",
    "is_lddp",
    "NoisySum",
    "DelStab",
    "BOTTOM",
    "subsample_users",
    "subsampling_amplification",
    "swap_difference_pmf",
    "pmf_quantile",
    "discard_curves",
    # bounds
    "theorem10_item_epsilon",
    "theorem10_item_delta",
    "conjectured_item_epsilon",
    "item_level_users",
    "observation28_bounds",
    "theorem10_users",
    "theorem11_users",
    "corollary3_users",
    "group_privacy_users",
    "theorem4_users",
    "breakpoints",
    "crossover_group_privacy",
    "regime_breakpoints",
    "BoundRow",
    "TABLE1_ROWS",
    "TABLE2_ROWS",
    # learners
    "Selection",
    "ThresholdClass",
    "pac_scores",
    "realizable_pac_learner",
    "ClippedPairwiseEM",
    "agnostic_pac_learner",
    "scheffe_selection",
    "discrete_cover",
    "learn_distribution_cover",
    "simulate_threshold_learning",
    "paper_tau",
    "pairwise_sum_pmf",
    "ClippingTradeoff",
    "clipping_tradeoff",
]
