"""The read side: leaderboards, field plots, heatmaps, compare, the per-item explorer and downloads, models
across benchmarks, starter kits, labels for columns.
"""
