"""Benchmarks and their splits: creating them from specs, importing the publishers' reference files (one or a
folder), the papers' published tables, keyed signatures of hidden labels, the demo.
"""
