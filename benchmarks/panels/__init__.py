"""make bench: panels in the kernel (run), their figures in the browser (redraw), a slider move end to end
(anatomy)."""
