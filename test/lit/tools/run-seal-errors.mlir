// tessel-run --target seal with bad input: one line, exit 1, no traceback.

// RUN: rm -rf %t && mkdir -p %t
// RUN: not %tessel-run %s --target seal --entry blur 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s --check-prefix=SPEC
// SPEC:      lines: 1
// SPEC-NEXT: {{^}}tessel-run: error: @blur is not a program (it has no hev.implements); run he-synthesize to make one from a spec{{$}}

// RUN: not %tessel-run %s --target seal --entry nope 2>&1 | filecheck %s --check-prefix=NOPE
// NOPE: tessel-run: error: no function @nope in {{.*}}run-seal-errors.mlir (functions: @blur, @blur_prog, @blur_bad_signature)

// RUN: not %tessel-run %s --target seal --entry blur_prog --params n9999 2>&1 | filecheck %s --check-prefix=PARAMS
// PARAMS: tessel-run: error: unknown parameter set 'n9999' (known: n4096-q109, n4096-q55x2, {{.*}})

// RUN: %python -c "import numpy as np; np.savez('%t/short.npz', x=np.arange(8))"
// RUN: not %tessel-run %s --target seal --entry blur_prog --inputs %t/short.npz 2>&1 | filecheck %s --check-prefix=SHAPE
// SHAPE: tessel-run: error: {{.*}}short.npz: input 'x' is int64[8], the kernel takes 16 integers

// RUN: %python -c "import numpy as np; np.savez('%t/other.npz', y=np.arange(16))"
// RUN: not %tessel-run %s --target seal --entry blur_prog --inputs %t/other.npz 2>&1 | filecheck %s --check-prefix=NAME
// NAME: tessel-run: error: {{.*}}other.npz: no kernel input named y (inputs: x)

// RUN: not %tessel-run %s --target seal --entry blur_bad_signature 2>&1 | filecheck %s --check-prefix=SIG
// SIG: run-seal-errors.mlir:[[# @LINE + 20]]:1: error: @blur_bad_signature: argument #0 is declared differently from the spec @blur (hev.public, hev.domain, hev.image and hev.padded must match)

// RUN: %tessel-run %s --target seal --list-params > %t/params
// RUN: filecheck %s --check-prefix=LIST --input-file %t/params
// LIST: n8192-q218     N=8192, q=43+43+44+44+44 bits (218)  (default)

func.func @blur(%x: !hev.vec<16> {hev.image = array<i64: 4, 4>}) -> !hev.vec<16> attributes {hev.spec} {
  %up = hev.spec.shift %x by -4 : !hev.vec<16>
  %s0 = hev.spec.add %x, %up : !hev.vec<16>
  func.return %s0 : !hev.vec<16>
}

func.func @blur_prog(%x: !hev.vec<16> {hev.image = array<i64: 4, 4>}) -> !hev.vec<16> attributes {hev.implements = @blur} {
  %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
  %r0 = hev.rotate %c by -4 : !hev.ct<16>
  %s0 = hev.add %c, %r0 : !hev.ct<16>
  %out = hev.decrypt %s0 : !hev.ct<16> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}

func.func @blur_bad_signature(%x: !hev.vec<16>) -> !hev.vec<16> attributes {hev.implements = @blur} {
  %c = hev.encrypt %x : !hev.vec<16> -> !hev.ct<16>
  %out = hev.decrypt %c : !hev.ct<16> -> !hev.vec<16>
  func.return %out : !hev.vec<16>
}
