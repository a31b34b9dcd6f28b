"""How kernel-to-loops builds the loop nest of one stage under a schedule: the schedule
model, sched IR applied to it, the GPU defaults, the loop builder and the lane bodies."""
