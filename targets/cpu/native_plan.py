"""The launch plan run by native code: one ctypes call per inference, on the module's own
thread pool.

Calling each stage from Python costs a few microseconds, and handing a chunk to a Python
worker thread about forty (a GIL round trip), which is most of the time of a small model.
So the module carries its own executor, in LLVM IR:

- `@<stage>.dispatch(ptr args, i64 lo, i64 hi)` loads a stage's buffer pointers from an
  array and calls it on [lo, hi);
- `@tessel.run_plan(ptr plan, i64 count, i32 threads)` walks an array of launch
  descriptors. A launch with more than one chunk is published to the pool (a generation
  counter the workers watch); the calling thread takes chunks from the front of the
  launch's range and the workers from its back (one atomic word holds both ends), until
  none are left, so that a chunk of consecutive launches over the same axis tends to stay
  on the thread, and in the cache, that produced its input; the caller then waits only
  for chunks already being run. It never waits for a worker that has not started: on a machine
  where other jobs hold the cores, a descheduled worker costs nothing (OpenMP's barrier
  would wait for it a whole time slice, tens of times the work of a small launch);
- workers spin briefly after a launch, then yield, then sleep in short naps, so a running
  model hands them work within microseconds and an idle one costs almost nothing;
- `@tessel.pool_stop()` joins the workers (`CpuExecutable.close`, before the module's
  code is freed); `@tessel.copy` is the dispatcher of memref.copy (a memcpy).

A descriptor is eight int64 words (a cache line, so counters do not share one):
dispatch address, argument array address, extent, chunk, counter (the next chunk from the
front in its low 32 bits, one past the last unclaimed one in its high 32), a flag and the
nanoseconds of the launch's last run when the flag is set: a profile or the tuner times a
launch inside a whole run this way, with no return to Python between launches (after a
run's memory traffic, Python's own first steps miss the caches for 40-80 us, which timing
launch by launch from Python added to every small one). Inputs and outputs are
the only argument slots that change between runs; Python patches them and makes one call.
The pool uses pthreads and atomics only (libc), nothing the process may lack.
"""

from __future__ import annotations

import platform

# (the Python side lives in the runtime package: saved models run it without the compiler)
from tessel.runtime.native import ELAPSED, TIMED
from tessel.runtime.native import WORDS as WORDS
from tessel.runtime.native import NativePlan as NativePlan

COPY = "tessel.copy"
POOL_STOP = "tessel.pool_stop"
MAX_THREADS = 64
SPINS = 4000  # idle loop iterations spent spinning, then yielding, before napping


def dispatcher(stage: str, arity: int) -> str:
    lines = [f"define void @{stage}.dispatch(ptr %args, i64 %lo, i64 %hi) {{"]
    for i in range(arity):
        lines.append(f"  %p{i} = getelementptr ptr, ptr %args, i64 {i}")
        lines.append(f"  %a{i} = load ptr, ptr %p{i}, align 8")
    operands = ", ".join([*(f"ptr %a{i}" for i in range(arity)), "i64 %lo", "i64 %hi"])
    lines += [f"  call void @{stage}({operands})", "  ret void", "}"]
    return "\n".join(lines)


# A spin-wait hint where the CPU has one.
_X86 = platform.machine() in ("x86_64", "AMD64", "i686")
_PAUSE = "call void @llvm.x86.sse2.pause()" if _X86 else ""
# CLOCK_MONOTONIC's number: 1 on Linux, 6 on macOS
_MONOTONIC = 6 if platform.system() == "Darwin" else 1

RUNTIME = f"""
@tessel.pool.gen = internal global i64 0
@tessel.pool.job = internal global ptr null
@tessel.pool.active = internal global i64 0
@tessel.pool.stop = internal global i32 0
@tessel.pool.count = internal global i32 0
@tessel.pool.tids = internal global [{MAX_THREADS} x i64] zeroinitializer

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_join(i64, ptr)
declare i32 @sched_yield()
declare i32 @usleep(i32)
declare i32 @clock_gettime(i32, ptr)
{"declare void @llvm.x86.sse2.pause()" if _X86 else ""}

; Nanoseconds on the monotonic clock (a vDSO call, ~20 ns), for the launches a plan times.
define internal i64 @tessel.now() {{
  %ts = alloca {{ i64, i64 }}, align 8
  %r = call i32 @clock_gettime(i32 {_MONOTONIC}, ptr %ts)
  %ps = getelementptr {{ i64, i64 }}, ptr %ts, i32 0, i32 0
  %sec = load i64, ptr %ps, align 8
  %pn = getelementptr {{ i64, i64 }}, ptr %ts, i32 0, i32 1
  %nsec = load i64, ptr %pn, align 8
  %ns = mul i64 %sec, 1000000000
  %t = add i64 %ns, %nsec
  ret i64 %t
}}

define void @tessel.copy(ptr %args, i64 %lo, i64 %hi) {{
  %src = load ptr, ptr %args, align 8
  %pd = getelementptr ptr, ptr %args, i64 1
  %dst = load ptr, ptr %pd, align 8
  %pn = getelementptr ptr, ptr %args, i64 2
  %n = load i64, ptr %pn, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  ret void
}}

; Run chunks of a launch until none are left. The counter packs the next chunk from the
; front (low 32 bits) and one past the last unclaimed chunk (high 32 bits): the calling
; thread claims from the front, workers from the back, so that in consecutive launches over
; the same axis a chunk runs on the thread that ran it in the launch before, whose cache
; holds what that chunk wrote.
define internal void @tessel.drain(ptr %desc, i1 %back) {{
entry:
  %fn = load ptr, ptr %desc, align 8
  %pa = getelementptr i64, ptr %desc, i64 1
  %args = load ptr, ptr %pa, align 8
  %pe = getelementptr i64, ptr %desc, i64 2
  %extent = load i64, ptr %pe, align 8
  %pc = getelementptr i64, ptr %desc, i64 3
  %chunk = load i64, ptr %pc, align 8
  %counter = getelementptr i64, ptr %desc, i64 4
  br label %grab
grab:
  %old = load atomic i64, ptr %counter seq_cst, align 8
  br label %try
try:
  %cur = phi i64 [%old, %grab], [%seen, %retry]
  %front = and i64 %cur, 4294967295
  %end = lshr i64 %cur, 32
  %empty = icmp uge i64 %front, %end
  br i1 %empty, label %exit, label %claim
claim:
  %last = sub i64 %end, 1
  %next = add i64 %front, 1
  %last_hi = shl i64 %last, 32
  %from_back = or i64 %front, %last_hi
  %end_hi = shl i64 %end, 32
  %from_front = or i64 %next, %end_hi
  %new = select i1 %back, i64 %from_back, i64 %from_front
  %index = select i1 %back, i64 %last, i64 %front
  %pair = cmpxchg ptr %counter, i64 %cur, i64 %new seq_cst seq_cst, align 8
  %seen = extractvalue {{ i64, i1 }} %pair, 0
  %won = extractvalue {{ i64, i1 }} %pair, 1
  br i1 %won, label %work, label %retry
retry:
  br label %try
work:
  %lo = mul i64 %index, %chunk
  %stop = add i64 %lo, %chunk
  %short = icmp slt i64 %stop, %extent
  %hi = select i1 %short, i64 %stop, i64 %extent
  call void %fn(ptr %args, i64 %lo, i64 %hi)
  br label %grab
exit:
  ret void
}}

define internal ptr @tessel.worker(ptr %unused) {{
entry:
  %seen0 = load atomic i64, ptr @tessel.pool.gen seq_cst, align 8
  br label %wait
wait:
  %seen = phi i64 [%seen0, %entry], [%gen, %run], [%seen, %spin], [%seen, %yield], [%seen, %nap]
  %spins = phi i64 [0, %entry], [0, %run], [%spins1, %spin], [%spins1, %yield], [%spins1, %nap]
  %stop = load atomic i32, ptr @tessel.pool.stop seq_cst, align 4
  %stopping = icmp ne i32 %stop, 0
  br i1 %stopping, label %exit, label %check
check:
  %gen = load atomic i64, ptr @tessel.pool.gen seq_cst, align 8
  %new = icmp ne i64 %gen, %seen
  br i1 %new, label %run, label %idle
run:
  %a0 = atomicrmw add ptr @tessel.pool.active, i64 1 seq_cst, align 8
  %job = load atomic ptr, ptr @tessel.pool.job seq_cst, align 8
  call void @tessel.drain(ptr %job, i1 true)
  %a1 = atomicrmw sub ptr @tessel.pool.active, i64 1 seq_cst, align 8
  br label %wait
idle:
  %spins1 = add i64 %spins, 1
  %spinning = icmp ult i64 %spins, {SPINS}
  br i1 %spinning, label %spin, label %rest
spin:
  {_PAUSE}
  br label %wait
rest:
  %yielding = icmp ult i64 %spins, {2 * SPINS}
  br i1 %yielding, label %yield, label %nap
yield:
  %y = call i32 @sched_yield()
  br label %wait
nap:
  %s = call i32 @usleep(i32 200)
  br label %wait
exit:
  ret ptr null
}}

define internal void @tessel.pool_start(i32 %threads) {{
entry:
  %count = load atomic i32, ptr @tessel.pool.count seq_cst, align 4
  %running = icmp ne i32 %count, 0
  br i1 %running, label %done, label %start
start:
  %want = sub i32 %threads, 1
  %cap = icmp slt i32 %want, {MAX_THREADS}
  %n = select i1 %cap, i32 %want, i32 {MAX_THREADS}
  br label %loop
loop:
  %i = phi i32 [0, %start], [%i1, %next]
  %more = icmp slt i32 %i, %n
  br i1 %more, label %create, label %finish
create:
  %slot = getelementptr [{MAX_THREADS} x i64], ptr @tessel.pool.tids, i32 0, i32 %i
  %r = call i32 @pthread_create(ptr %slot, ptr null, ptr @tessel.worker, ptr null)
  %ok = icmp eq i32 %r, 0
  br i1 %ok, label %next, label %finish
next:
  %i1 = add i32 %i, 1
  br label %loop
finish:
  %made = phi i32 [%i, %loop], [%i, %create]
  store atomic i32 %made, ptr @tessel.pool.count seq_cst, align 4
  br label %done
done:
  ret void
}}

define void @tessel.pool_stop() {{
entry:
  store atomic i32 1, ptr @tessel.pool.stop seq_cst, align 4
  %count = load atomic i32, ptr @tessel.pool.count seq_cst, align 4
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%i1, %join]
  %more = icmp slt i32 %i, %count
  br i1 %more, label %join, label %done
join:
  %slot = getelementptr [{MAX_THREADS} x i64], ptr @tessel.pool.tids, i32 0, i32 %i
  %tid = load i64, ptr %slot, align 8
  %r = call i32 @pthread_join(i64 %tid, ptr null)
  %i1 = add i32 %i, 1
  br label %loop
done:
  store atomic i32 0, ptr @tessel.pool.count seq_cst, align 4
  store atomic i32 0, ptr @tessel.pool.stop seq_cst, align 4
  ret void
}}

define void @tessel.run_plan(ptr %plan, i64 %count, i32 %threads) {{
entry:
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %exit, label %launch
launch:
  %i = phi i64 [0, %entry], [%next, %latch]
  %word = mul i64 %i, 8
  %desc = getelementptr i64, ptr %plan, i64 %word
  %fn = load ptr, ptr %desc, align 8
  %pa = getelementptr i64, ptr %desc, i64 1
  %args = load ptr, ptr %pa, align 8
  %pe = getelementptr i64, ptr %desc, i64 2
  %extent = load i64, ptr %pe, align 8
  %pc = getelementptr i64, ptr %desc, i64 3
  %chunk = load i64, ptr %pc, align 8
  %pf = getelementptr i64, ptr %desc, i64 {TIMED}
  %flag = load i64, ptr %pf, align 8
  %timed = icmp ne i64 %flag, 0
  br i1 %timed, label %clock0, label %go
clock0:
  %t0 = call i64 @tessel.now()
  br label %go
go:
  %start = phi i64 [0, %launch], [%t0, %clock0]
  %one_thread = icmp sle i32 %threads, 1
  %one_chunk = icmp sle i64 %extent, %chunk
  %serial = or i1 %one_thread, %one_chunk
  br i1 %serial, label %inline, label %parallel
inline:
  call void %fn(ptr %args, i64 0, i64 %extent)
  br label %done
parallel:
  call void @tessel.pool_start(i32 %threads)
  %counter = getelementptr i64, ptr %desc, i64 4
  %span = add i64 %extent, %chunk
  %span1 = sub i64 %span, 1
  %chunks = udiv i64 %span1, %chunk
  %packed = shl i64 %chunks, 32
  store atomic i64 %packed, ptr %counter seq_cst, align 8
  store atomic ptr %desc, ptr @tessel.pool.job seq_cst, align 8
  %g = atomicrmw add ptr @tessel.pool.gen, i64 1 seq_cst, align 8
  call void @tessel.drain(ptr %desc, i1 false)
  br label %settle
settle:
  %busy = load atomic i64, ptr @tessel.pool.active seq_cst, align 8
  %waiting = icmp ne i64 %busy, 0
  br i1 %waiting, label %pause, label %done
pause:
  {_PAUSE}
  br label %settle
done:
  br i1 %timed, label %clock1, label %latch
clock1:
  %t1 = call i64 @tessel.now()
  %took = sub i64 %t1, %start
  %pt = getelementptr i64, ptr %desc, i64 {ELAPSED}
  store i64 %took, ptr %pt, align 8
  br label %latch
latch:
  %next = add i64 %i, 1
  %more = icmp ult i64 %next, %count
  br i1 %more, label %launch, label %exit
exit:
  ret void
}}
"""
