// 3x3 Gaussian blur [1 2 1; 2 4 2; 1 2 1] (unnormalized) of a 64x64 image packed row-major
// in one ciphertext (4096 slots, wrapping around). Eight taps away from the pixel, but the
// kernel is separable twice over: (1 + z^W)(1 + z^-W)(1 + z)(1 + z^-1), where z is a
// rotation by one slot; he-synthesize finds the 4-rotation program and proves it optimal
// (4 rotations are the least any program reading 9 slots needs).

// The spec (examples/he/kernels.py builds the same function in Python).
func.func @gaussian_blur(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.spec} {
  %0 = hev.spec.shift %x by -65 : !hev.vec<4096>
  %1 = hev.spec.shift %x by -63 : !hev.vec<4096>
  %2 = hev.spec.add %0, %1 : !hev.vec<4096>
  %3 = hev.spec.shift %x by 63 : !hev.vec<4096>
  %4 = hev.spec.add %2, %3 : !hev.vec<4096>
  %5 = hev.spec.shift %x by 65 : !hev.vec<4096>
  %6 = hev.spec.add %4, %5 : !hev.vec<4096>
  %7 = hev.spec.shift %x by -64 : !hev.vec<4096>
  %8 = hev.spec.shift %x by -1 : !hev.vec<4096>
  %9 = hev.spec.add %7, %8 : !hev.vec<4096>
  %10 = hev.spec.shift %x by 1 : !hev.vec<4096>
  %11 = hev.spec.add %9, %10 : !hev.vec<4096>
  %12 = hev.spec.shift %x by 64 : !hev.vec<4096>
  %13 = hev.spec.add %11, %12 : !hev.vec<4096>
  %14 = hev.spec.const 2 : !hev.vec<4096>
  %15 = hev.spec.mul %14, %13 : !hev.vec<4096>
  %16 = hev.spec.add %6, %15 : !hev.vec<4096>
  %17 = hev.spec.const 4 : !hev.vec<4096>
  %18 = hev.spec.mul %17, %x : !hev.vec<4096>
  %19 = hev.spec.add %16, %18 : !hev.vec<4096>
  func.return %19 : !hev.vec<4096>
}

// Hand-written baseline: rotate to each of the 8 neighbours, weights by additions (8 rotations).
func.func @gaussian_blur_baseline(%x: !hev.vec<4096> {hev.image = array<i64: 64, 64>}) -> !hev.vec<4096> attributes {hev.implements = @gaussian_blur} {
  %c = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %rm65 = hev.rotate %c by -65 : !hev.ct<4096>
  %rm63 = hev.rotate %c by -63 : !hev.ct<4096>
  %r63 = hev.rotate %c by 63 : !hev.ct<4096>
  %r65 = hev.rotate %c by 65 : !hev.ct<4096>
  %rm64 = hev.rotate %c by -64 : !hev.ct<4096>
  %rm64_x2 = hev.add %rm64, %rm64 : !hev.ct<4096>
  %rm1 = hev.rotate %c by -1 : !hev.ct<4096>
  %rm1_x2 = hev.add %rm1, %rm1 : !hev.ct<4096>
  %r1 = hev.rotate %c by 1 : !hev.ct<4096>
  %r1_x2 = hev.add %r1, %r1 : !hev.ct<4096>
  %r64 = hev.rotate %c by 64 : !hev.ct<4096>
  %r64_x2 = hev.add %r64, %r64 : !hev.ct<4096>
  %c_x2 = hev.add %c, %c : !hev.ct<4096>
  %c_x4 = hev.add %c_x2, %c_x2 : !hev.ct<4096>
  %s0 = hev.add %rm65, %rm63 : !hev.ct<4096>
  %s1 = hev.add %s0, %r63 : !hev.ct<4096>
  %s2 = hev.add %s1, %r65 : !hev.ct<4096>
  %s3 = hev.add %s2, %rm64_x2 : !hev.ct<4096>
  %s4 = hev.add %s3, %rm1_x2 : !hev.ct<4096>
  %s5 = hev.add %s4, %r1_x2 : !hev.ct<4096>
  %s6 = hev.add %s5, %r64_x2 : !hev.ct<4096>
  %s7 = hev.add %s6, %c_x4 : !hev.ct<4096>
  %out = hev.decrypt %s7 : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}
