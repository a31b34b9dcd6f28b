// RUN: %tessel-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// The kernel dialect's custom syntax is what tg-to-kernel and kernel-to-loops dumps are
// read and FileCheck-ed in, and what a tuning record replays; it must print back exactly
// as written, and survive the generic form (second RUN line: print generic, parse, print
// custom) with every property intact: stage name, axis names and extents, how many of
// them reduce, combiner, init, pad, `when` and the launch extent.

// An element-wise stage: spatial axes only, no combine/init/then.
// CHECK-LABEL: func.func @elementwise
// CHECK-NEXT:    kernel.compute "add_relu" %y(i0 = 2, i1 = 8) : memref<2x8xf32> {
// CHECK-NEXT:    ^bb0(%i0: index, %i1: index):
// CHECK-NEXT:      %a = affine.load %x[%i0, %i1] : memref<2x8xf32>
// CHECK-NEXT:      %b = affine.load %bias[%i1] : memref<8xf32>
// CHECK-NEXT:      %s = arith.addf %a, %b : f32
// CHECK-NEXT:      %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %r = arith.maximumf %s, %zero : f32
// CHECK-NEXT:      kernel.yield %r : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @elementwise(%x: memref<2x8xf32>, %bias: memref<8xf32>, %y: memref<2x8xf32>) {
  kernel.compute "add_relu" %y(i0 = 2, i1 = 8) : memref<2x8xf32> {
  ^bb0(%i0: index, %i1: index):
    %a = affine.load %x[%i0, %i1] : memref<2x8xf32>
    %b = affine.load %bias[%i1] : memref<8xf32>
    %s = arith.addf %a, %b : f32
    %zero = arith.constant 0.000000e+00 : f32
    %r = arith.maximumf %s, %zero : f32
    kernel.yield %r : f32
  }
  func.return
}

// -----

// The docstring's convolution: reduction axes after `reduce`, a padded load with
// affine index expressions, and a `then` region that gets the spatial indices and the
// accumulator. Negative constants in an index print as `+ -1` (xDSL's affine printer).
// CHECK-LABEL: func.func @conv
// CHECK-NEXT:    kernel.compute "conv" %y(n = 1, m = 8, h = 6, w = 6) reduce(c = 4, kh = 3, kw = 3) combine "add" init 0.000000e+00 : f32 : memref<1x8x6x6xf32> {
// CHECK-NEXT:    ^bb0(%n: index, %m: index, %h: index, %w: index, %c: index, %kh: index, %kw: index):
// CHECK-NEXT:      %a = kernel.load %x[%n, %c, %h + %kh + -1, %w + %kw + -1] pad 0.000000e+00 : f32 : memref<1x4x6x6xf32>
// CHECK-NEXT:      %b = affine.load %wt[%m, %c, %kh, %kw] : memref<8x4x3x3xf32>
// CHECK-NEXT:      %p = arith.mulf %a, %b : f32
// CHECK-NEXT:      kernel.yield %p : f32
// CHECK-NEXT:    } then {
// CHECK-NEXT:    ^bb0(%n2: index, %m2: index, %h2: index, %w2: index, %acc: f32):
// CHECK-NEXT:      %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %r = arith.maximumf %acc, %zero : f32
// CHECK-NEXT:      kernel.yield %r : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @conv(%x: memref<1x4x6x6xf32>, %wt: memref<8x4x3x3xf32>, %y: memref<1x8x6x6xf32>) {
  kernel.compute "conv" %y(n = 1, m = 8, h = 6, w = 6) reduce(c = 4, kh = 3, kw = 3) combine "add" init 0.000000e+00 : f32 : memref<1x8x6x6xf32> {
  ^bb0(%n: index, %m: index, %h: index, %w: index, %c: index, %kh: index, %kw: index):
    %a = kernel.load %x[%n, %c, %h + %kh - 1, %w + %kw - 1] pad 0.000000e+00 : f32 : memref<1x4x6x6xf32>
    %b = affine.load %wt[%m, %c, %kh, %kw] : memref<8x4x3x3xf32>
    %p = arith.mulf %a, %b : f32
    kernel.yield %p : f32
  } then {
  ^bb0(%n2: index, %m2: index, %h2: index, %w2: index, %acc: f32):
    %zero = arith.constant 0.000000e+00 : f32
    %r = arith.maximumf %acc, %zero : f32
    kernel.yield %r : f32
  }
  func.return
}

// -----

// A reduction to a 0-d buffer (empty spatial list) without a then region; a load whose
// padding is also chosen by a `when` condition.
// CHECK-LABEL: func.func @scalar_sum
// CHECK-NEXT:    kernel.compute "sum" %y() reduce(r = 8) combine "add" init 0.000000e+00 : f32 : memref<f32> {
// CHECK-NEXT:    ^bb0(%r: index):
// CHECK-NEXT:      %a = kernel.load %x[%r + 2] pad 1.000000e+00 : f32 when %c : memref<8xf32>
// CHECK-NEXT:      kernel.yield %a : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @scalar_sum(%x: memref<8xf32>, %y: memref<f32>, %c: i1) {
  kernel.compute "sum" %y() reduce(r = 8) combine "add" init 0.000000e+00 : f32 : memref<f32> {
  ^bb0(%r: index):
    %a = kernel.load %x[%r + 2] pad 1.000000e+00 : f32 when %c : memref<8xf32>
    kernel.yield %a : f32
  }
  func.return
}

// -----

// Every combiner keeps its name and its init keeps its type and value: -inf for a
// float max prints as its (lower-case) bit pattern, integer inits keep their sign.
// CHECK-LABEL: func.func @combiners
// CHECK:         kernel.compute "max" %m(i = 4) reduce(r = 3) combine "max" init 0xff800000 : f32 : memref<4xf32> {
// CHECK:         kernel.compute "min" %n(i = 4) reduce(r = 3) combine "min" init 2147483647 : i32 : memref<4xi32> {
// CHECK:         kernel.compute "prod" %p(i = 4) reduce(r = 3) combine "mul" init 1.000000e+00 : f32 : memref<4xf32> {
// CHECK:         kernel.compute "umax" %u(i = 4) reduce(r = 3) combine "umax" init 0 : i8 : memref<4xi8> {
// CHECK:         kernel.compute "umin" %v(i = 4) reduce(r = 3) combine "umin" init -1 : i8 : memref<4xi8> {
func.func @combiners(%x: memref<3x4xf32>, %xi: memref<3x4xi32>, %xb: memref<3x4xi8>, %m: memref<4xf32>, %n: memref<4xi32>, %p: memref<4xf32>, %u: memref<4xi8>, %v: memref<4xi8>) {
  kernel.compute "max" %m(i = 4) reduce(r = 3) combine "max" init 0xFF800000 : f32 : memref<4xf32> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %x[%r, %i] : memref<3x4xf32>
    kernel.yield %a : f32
  }
  kernel.compute "min" %n(i = 4) reduce(r = 3) combine "min" init 2147483647 : i32 : memref<4xi32> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %xi[%r, %i] : memref<3x4xi32>
    kernel.yield %a : i32
  }
  kernel.compute "prod" %p(i = 4) reduce(r = 3) combine "mul" init 1.000000e+00 : f32 : memref<4xf32> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %x[%r, %i] : memref<3x4xf32>
    kernel.yield %a : f32
  }
  kernel.compute "umax" %u(i = 4) reduce(r = 3) combine "umax" init 0 : i8 : memref<4xi8> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %xb[%r, %i] : memref<3x4xi8>
    kernel.yield %a : i8
  }
  kernel.compute "umin" %v(i = 4) reduce(r = 3) combine "umin" init -1 : i8 : memref<4xi8> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %xb[%r, %i] : memref<3x4xi8>
    kernel.yield %a : i8
  }
  func.return
}

// -----

// A then region may change the type: an f32 accumulator stored into an f16 buffer.
// CHECK-LABEL: func.func @narrowing_then
// CHECK-NEXT:    kernel.compute "sum" %y(i = 4) reduce(r = 3) combine "add" init 0.000000e+00 : f32 : memref<4xf16> {
// CHECK:         } then {
// CHECK-NEXT:    ^bb0(%i2: index, %acc: f32):
// CHECK-NEXT:      %t = arith.truncf %acc : f32 to f16
// CHECK-NEXT:      kernel.yield %t : f16
// CHECK-NEXT:    }
func.func @narrowing_then(%x: memref<3x4xf16>, %y: memref<4xf16>) {
  kernel.compute "sum" %y(i = 4) reduce(r = 3) combine "add" init 0.000000e+00 : f32 : memref<4xf16> {
  ^bb0(%i: index, %r: index):
    %a = affine.load %x[%r, %i] : memref<3x4xf16>
    %w = arith.extf %a : f16 to f32
    kernel.yield %w : f32
  } then {
  ^bb0(%i2: index, %acc: f32):
    %t = arith.truncf %acc : f32 to f16
    kernel.yield %t : f16
  }
  func.return
}

// -----

// kernel.launch names a stage function, its buffers and the extent of its parallel
// loop. The extent is an integer attribute, so its type is written (`64 : i64`) before
// the operand types.
// CHECK-LABEL: func.func @launch
// CHECK-NEXT:    kernel.launch @launch__s0(%x, %y) over 64 : i64 : memref<8xf32>, memref<f32>
// CHECK-NEXT:    kernel.launch @launch__s1() over 1 : i64 :
// CHECK-NEXT:    func.return
func.func @launch(%x: memref<8xf32>, %y: memref<f32>) {
  kernel.launch @launch__s0(%x, %y) over 64 : i64 : memref<8xf32>, memref<f32>
  kernel.launch @launch__s1() over 1 : i64 :
  func.return
}

// -----

// kernel.dot4 (four unsigned bytes times four signed bytes, summed into an i32), on
// scalars and on vectors; `lanes(o1)` names the axis the default schedule vectorizes.
// CHECK-LABEL: func.func @dot4
// CHECK-NEXT:    kernel.compute "conv_dot4" %y(o0 = 4, o1 = 16) reduce(c4 = 2) combine "add" init 0 : i32 lanes(o1) : memref<4x16xi32> {
// CHECK-NEXT:    ^bb0(%o0: index, %o1: index, %c4: index):
// CHECK-NEXT:      %a = affine.load %x[%o0, %c4] : memref<4x2xi32>
// CHECK-NEXT:      %b = affine.load %w[%c4, %o1] : memref<2x16xi32>
// CHECK-NEXT:      %zero = arith.constant 0 : i32
// CHECK-NEXT:      %d = kernel.dot4 %zero, %a, %b : i32
// CHECK-NEXT:      kernel.yield %d : i32
// CHECK-NEXT:    }
// CHECK:         %v = kernel.dot4 %va, %va, %va : vector<16xi32>
func.func @dot4(%x: memref<4x2xi32>, %w: memref<2x16xi32>, %y: memref<4x16xi32>, %va: vector<16xi32>) {
  kernel.compute "conv_dot4" %y(o0 = 4, o1 = 16) reduce(c4 = 2) combine "add" init 0 : i32 lanes(o1) : memref<4x16xi32> {
  ^bb0(%o0: index, %o1: index, %c4: index):
    %a = affine.load %x[%o0, %c4] : memref<4x2xi32>
    %b = affine.load %w[%c4, %o1] : memref<2x16xi32>
    %zero = arith.constant 0 : i32
    %d = kernel.dot4 %zero, %a, %b : i32
    kernel.yield %d : i32
  }
  %v = kernel.dot4 %va, %va, %va : vector<16xi32>
  func.return
}

// -----

// kernel.bf16dot2 (two bfloat16 halves of an i32 times two, summed into an f32), on
// scalars and on vectors of 16 lanes (one vdpbf16ps).
// CHECK-LABEL: func.func @bf16dot2
// CHECK:         %d = kernel.bf16dot2 %acc, %a, %b : f32, i32
// CHECK-NEXT:    %v = kernel.bf16dot2 %vacc, %va, %va : vector<16xf32>, vector<16xi32>
func.func @bf16dot2(%acc: f32, %a: i32, %b: i32, %vacc: vector<16xf32>, %va: vector<16xi32>) {
  %d = kernel.bf16dot2 %acc, %a, %b : f32, i32
  %v = kernel.bf16dot2 %vacc, %va, %va : vector<16xf32>, vector<16xi32>
  func.return
}
