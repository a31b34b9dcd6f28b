"""Passes on `sched`: sched-default, every stage's default schedule written as sched IR."""
