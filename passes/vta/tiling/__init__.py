"""A layer's tiles on VTA: what fits each thread's share of the SRAMs, the analytic cost that ranks them, and their form as `sched` IR."""
