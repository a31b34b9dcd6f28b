"""Schedule search: the space of a stage's schedules, measurement, cost model, search."""
