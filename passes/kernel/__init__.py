"""Passes on `kernel`: kernel-to-loops, from kernel.compute stages under their schedules to
loop IR."""
