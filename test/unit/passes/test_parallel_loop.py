"""Which loop of a default schedule runs in parallel (schedule.parallel_loop).

The first serial loop of more than one trip, as before, unless it has fewer than
FEW_CHUNKS trips and a later one has MANY_CHUNKS: a depthwise layer's 2 channel blocks
made 2 chunks for 2 threads, and a thread that started late doubled the launch. A
reduction axis is never chosen where the spatial count is given (the threads would race
on the sums), nor a loop with an outer loop of its own axis."""

from __future__ import annotations

from tessel.passes.kernel.loops.loop import Loop
from tessel.passes.kernel.loops.schedule import FEW_CHUNKS, MANY_CHUNKS, parallel_loop


def test_few_chunks_give_way_to_a_later_loop_of_many():
    loops = [Loop(1, 2, 1), Loop(0, 1, 1), Loop(2, 112, 1), Loop(3, 8, 14)]
    assert parallel_loop(loops, len(loops)) == 2


def test_enough_chunks_keep_the_first_loop():
    loops = [Loop(1, FEW_CHUNKS, 1), Loop(2, 112, 1)]
    assert parallel_loop(loops, len(loops)) == 0


def test_no_later_loop_of_many_keeps_the_first():
    loops = [Loop(1, 2, 1), Loop(2, MANY_CHUNKS - 1, 1)]
    assert parallel_loop(loops, len(loops)) == 0


def test_a_reduction_axis_is_not_chosen():
    # a scalar reduction: spatial axes 0 and 1, the reduction axis 2 (1000 trips)
    loops = [Loop(0, 2, 1), Loop(1, 1, 1), Loop(2, 1000, 1)]
    assert parallel_loop(loops, len(loops), spatial=2) == 0
    assert parallel_loop([Loop(0, 1, 1), Loop(2, 1000, 1)], 2, spatial=2) is None


def test_loops_past_the_accumulator_or_inside_their_own_axis_are_not_chosen():
    loops = [Loop(1, 2, 1), Loop(2, 112, 1)]
    assert parallel_loop(loops, 1) == 0  # (the accumulator sits after the first loop)
    split = [Loop(1, 2, 1), Loop(2, 4, 28), Loop(2, 28, 1)]
    assert parallel_loop(split, len(split)) == 0  # the rows' inner loop stays inside its outer one
