"""Schedules: how kernel stages become loop nests (split, reorder, vectorize, unroll, parallel, accumulator tiles)."""
