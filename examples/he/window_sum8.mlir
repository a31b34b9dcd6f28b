// A sliding-window sum over 4096 samples: slot i gets x[i] + x[i+1] + ... + x[i+7], written
// tap by tap. (1 + z)(1 + z^2)(1 + z^4): a rotate-and-add log tree of 3 rotations.

// The spec (examples/he/kernels.py builds the same function in Python).
func.func @window_sum8(%x: !hev.vec<4096>) -> !hev.vec<4096> attributes {hev.spec} {
  %0 = hev.spec.shift %x by 1 : !hev.vec<4096>
  %1 = hev.spec.add %x, %0 : !hev.vec<4096>
  %2 = hev.spec.shift %x by 2 : !hev.vec<4096>
  %3 = hev.spec.add %1, %2 : !hev.vec<4096>
  %4 = hev.spec.shift %x by 3 : !hev.vec<4096>
  %5 = hev.spec.add %3, %4 : !hev.vec<4096>
  %6 = hev.spec.shift %x by 4 : !hev.vec<4096>
  %7 = hev.spec.add %5, %6 : !hev.vec<4096>
  %8 = hev.spec.shift %x by 5 : !hev.vec<4096>
  %9 = hev.spec.add %7, %8 : !hev.vec<4096>
  %10 = hev.spec.shift %x by 6 : !hev.vec<4096>
  %11 = hev.spec.add %9, %10 : !hev.vec<4096>
  %12 = hev.spec.shift %x by 7 : !hev.vec<4096>
  %13 = hev.spec.add %11, %12 : !hev.vec<4096>
  func.return %13 : !hev.vec<4096>
}

// Hand-written baseline: one rotation per tap (7 rotations).
func.func @window_sum8_baseline(%x: !hev.vec<4096>) -> !hev.vec<4096> attributes {hev.implements = @window_sum8} {
  %c = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %r1 = hev.rotate %c by 1 : !hev.ct<4096>
  %r2 = hev.rotate %c by 2 : !hev.ct<4096>
  %r3 = hev.rotate %c by 3 : !hev.ct<4096>
  %r4 = hev.rotate %c by 4 : !hev.ct<4096>
  %r5 = hev.rotate %c by 5 : !hev.ct<4096>
  %r6 = hev.rotate %c by 6 : !hev.ct<4096>
  %r7 = hev.rotate %c by 7 : !hev.ct<4096>
  %s0 = hev.add %c, %r1 : !hev.ct<4096>
  %s1 = hev.add %s0, %r2 : !hev.ct<4096>
  %s2 = hev.add %s1, %r3 : !hev.ct<4096>
  %s3 = hev.add %s2, %r4 : !hev.ct<4096>
  %s4 = hev.add %s3, %r5 : !hev.ct<4096>
  %s5 = hev.add %s4, %r6 : !hev.ct<4096>
  %s6 = hev.add %s5, %r7 : !hev.ct<4096>
  %out = hev.decrypt %s6 : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}
