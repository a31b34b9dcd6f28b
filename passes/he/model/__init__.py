"""The cost and noise model of BFV programs: estimates from the measured table, and choices made with them."""
