// tessel-run --target seal: encrypt, run on SEAL, decrypt, check against the spec.

// RUN: rm -rf %t && mkdir -p %t
// RUN: not %tessel-run %s --target seal --costs %S/../passes/he/Inputs/costs.json --reps 2 | filecheck %s
// CHECK:      {{^}}@blur_baseline: N=4096, q={{[0-9+]+}} bits ({{[0-9]+}}), t=65537 (selected); 3 add, 3 rotate; depth 0{{$}}
// CHECK-NEXT: {{^}}  latency {{[0-9]+\.[0-9]+}} ms (median of 2), noise budget left {{[0-9]+}} bits, Galois keys for steps [-5, -4, -1]{{$}}
// CHECK-NEXT: {{^}}  check against @blur: OK (16 slots){{$}}
// CHECK-NEXT: {{^}}@blur_tree: N=4096, {{.*}} 2 add, 2 rotate; depth 0{{$}}
// CHECK-NEXT: {{^}}  latency {{.*}} Galois keys for steps [-4, -1]{{$}}
// CHECK-NEXT: {{^}}  check against @blur: OK (16 slots){{$}}
// CHECK-NEXT: {{^}}@blur_wrong: {{.*}}
// CHECK-NEXT: {{^}}  latency
// CHECK-NEXT: {{^}}  check against @blur: FAILED at 16 of 16 slots (slot 0: got {{[0-9]+}}, expected {{[0-9]+}}){{$}}

// Parameters: the paper's default, a named set, or power-of-two keys only.
// RUN: %tessel-run %s --target seal --entry blur_tree --params default --reps 1 | filecheck %s --check-prefix=DEFAULT
// DEFAULT: @blur_tree: N=8192, q=43+43+44+44+44 bits (218), t=65537 (default); 2 add, 2 rotate; depth 0
// DEFAULT: check against @blur: OK (16 slots)
// RUN: %tessel-run %s --target seal --entry blur_baseline --params n8192-q60x2 --keys pow2 --reps 1 | filecheck %s --check-prefix=POW2
// POW2: @blur_baseline: N=8192, q=60+60 bits (120), t=65537 (given)
// POW2: Galois keys for steps [-4, -1]
// POW2: check against @blur: OK (16 slots)

// Given inputs, outputs written by program name.
// RUN: %python -c "import numpy as np; np.savez('%t/in.npz', x=np.arange(16))"
// RUN: %tessel-run %s --target seal --entry blur_tree --inputs %t/in.npz -o %t/out.npz --reps 1 --costs %S/../passes/he/Inputs/costs.json
// RUN: %python -c "import numpy as np; o = np.load('%t/out.npz')['blur_tree']; x = np.arange(16); e = x + np.roll(x, 4) + np.roll(x, 1) + np.roll(x, 5); assert (o == e).all(), (o, e); print('ok')" | filecheck %s --check-prefix=OUT
// OUT: ok

// The wrong program makes the run fail.
// RUN: not %tessel-run %s --target seal --entry blur_wrong --reps 1 --costs %S/../passes/he/Inputs/costs.json > /dev/null

func.func @blur(%x: !hev.vec<16> {hev.image = array<i64: 4, 4>}) -> !hev.vec<16> attributes {hev.spec} {
  %up = hev.spec.shift %x by -4 : !hev.vec<16>
  %s0 = hev.spec.add %x, %up : !hev.vec<16>
  %left = hev.spec.shift %x by -1 : !hev.vec<16>
  %s1 = hev.spec.add %s0, %left : !hev.vec<16>
  %diag = hev.spec.shift %x by -5 : !hev.vec<16>
  %s2 = hev.spec.add %s1, %diag : !hev.vec<16>
  func.return %s2 : !hev.vec<16>
}

func.func @blur_baseline(%x: !hev.vec<16> {hev.image = array<i64: 4, 4>}) -> !hev.vec<16> attributes {hev.implements = @blur} {
  %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
  %up = hev.rotate %c by -4 : !hev.ct<16>
  %left = hev.rotate %c by -1 : !hev.ct<16>
  %diag = hev.rotate %c by -5 : !hev.ct<16>
  %s0 = hev.add %c, %up : !hev.ct<16>
  %s1 = hev.add %s0, %left : !hev.ct<16>
  %s2 = hev.add %s1, %diag : !hev.ct<16>
  %out = hev.decrypt %s2 : !hev.ct<16> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}

func.func @blur_tree(%x: !hev.vec<16> {hev.image = array<i64: 4, 4>}) -> !hev.vec<16> attributes {hev.implements = @blur} {
  %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
  %r0 = hev.rotate %c by -4 : !hev.ct<16>
  %s0 = hev.add %c, %r0 : !hev.ct<16>
  %r1 = hev.rotate %s0 by -1 : !hev.ct<16>
  %s1 = hev.add %s0, %r1 : !hev.ct<16>
  %out = hev.decrypt %s1 : !hev.ct<16> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}

// Rotates the wrong way.
func.func @blur_wrong(%x: !hev.vec<16> {hev.image = array<i64: 4, 4>}) -> !hev.vec<16> attributes {hev.implements = @blur} {
  %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
  %r0 = hev.rotate %c by 4 : !hev.ct<16>
  %s0 = hev.add %c, %r0 : !hev.ct<16>
  %r1 = hev.rotate %s0 by 1 : !hev.ct<16>
  %s1 = hev.add %s0, %r1 : !hev.ct<16>
  %out = hev.decrypt %s1 : !hev.ct<16> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}
