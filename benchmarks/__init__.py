"""dpviz benchmarks: numerics/ (named computations), panels/ (make bench), classroom/ (make loadtest)."""
