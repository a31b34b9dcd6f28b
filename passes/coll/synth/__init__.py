"""The collective synthesizer: TACCL's routing relaxation, greedy ordering, CP-SAT scheduling, chunk merging and sketch search."""
