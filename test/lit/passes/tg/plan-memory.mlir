// RUN: %tessel-opt %s -p tg-plan-memory --split-input-file | filecheck %s

// tg-plan-memory places every intermediate tensor in one arena. A buffer lives from its
// producer's position in the function body to its last use (both ends included);
// buffers are placed largest first (ties: earliest first), each at the lowest 64-byte
// aligned offset that is free over its whole lifetime. A producer gets `tg.offset`, the
// function `tg.memory = {arena = max(offset + size), unplanned = sum of sizes, each rounded up to 64}`.
// Function arguments, results, weights and constants are not placed.

// A chain: %a (positions 1-2) and %b (2-3) overlap at 2, so %b goes above %a, at the
// first multiple of 64 after its 24 bytes. %c is returned: not placed. The weight is
// not placed either.
//   arena = 64 + 24 = 88, unplanned = 64 + 64 = 128

// CHECK-LABEL: func.func @chain
// CHECK-SAME:    attributes {tg.memory = {arena = 88 : i64, unplanned = 128 : i64}}
// CHECK-NEXT:    %w = tg.weight @w : tensor<2x3xf32>
// CHECK-NEXT:    %a = tg.add %x, %w {tg.offset = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %b = tg.exp %a {tg.offset = 64 : i64} : tensor<2x3xf32>
// CHECK-NEXT:    %c = tg.neg %b : tensor<2x3xf32>
// CHECK-NEXT:    func.return %c : tensor<2x3xf32>
func.func @chain(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %w = tg.weight @w : tensor<2x3xf32>
  %a = tg.add %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = tg.exp %a : tensor<2x3xf32>
  %c = tg.neg %b : tensor<2x3xf32>
  func.return %c : tensor<2x3xf32>
}

// -----

// Reuse: %a lives 0-1, %b 1-2, %c 2-3. %a is dead when %c is made, so %c takes %a's
// offset 0 while %b (alive at 2) keeps 64.
//   arena = 64 + 24 = 88, unplanned = 3 * 64 = 192

// CHECK-LABEL: func.func @reuse
// CHECK-SAME:    attributes {tg.memory = {arena = 88 : i64, unplanned = 192 : i64}}
// CHECK-NEXT:    %a = tg.relu %x {tg.offset = 0 : i64} : tensor<2x3xf32>
// CHECK-NEXT:    %b = tg.exp %a {tg.offset = 64 : i64} : tensor<2x3xf32>
// CHECK-NEXT:    %c = tg.neg %b {tg.offset = 0 : i64} : tensor<2x3xf32>
// CHECK-NEXT:    %d = tg.tanh %c : tensor<2x3xf32>
// CHECK-NEXT:    func.return %d : tensor<2x3xf32>
func.func @reuse(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tg.relu %x : tensor<2x3xf32>
  %b = tg.exp %a : tensor<2x3xf32>
  %c = tg.neg %b : tensor<2x3xf32>
  %d = tg.tanh %c : tensor<2x3xf32>
  func.return %d : tensor<2x3xf32>
}

// -----

// Overlapping lifetimes never share memory. %b (32 bytes, 0-2) and %a (128 bytes, 1-2)
// are both alive at 2; the larger %a is placed first, at 0, so %b, made first, lands
// at 128.
//   arena = 128 + 32 = 160, unplanned = 128 + 64 = 192

// CHECK-LABEL: func.func @overlap
// CHECK-SAME:    attributes {tg.memory = {arena = 160 : i64, unplanned = 192 : i64}}
// CHECK-NEXT:    %b = tg.exp %y {tg.offset = 128 : i64} : tensor<8xf32>
// CHECK-NEXT:    %a = tg.relu %x {tg.offset = 0 : i64} : tensor<4x8xf32>
// CHECK-NEXT:    %c = tg.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %c : tensor<4x8xf32>
func.func @overlap(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %b = tg.exp %y : tensor<8xf32>
  %a = tg.relu %x : tensor<4x8xf32>
  %c = tg.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}

// -----

// Alignment: offsets are rounded up to 64 bytes. %small (4 bytes, 1-3) overlaps %big
// (100 bytes, 0-3), so it starts at 128, not at 100.
//   arena = 128 + 4 = 132, unplanned = 128 + 64 = 192

// CHECK-LABEL: func.func @alignment
// CHECK-SAME:    attributes {tg.memory = {arena = 132 : i64, unplanned = 192 : i64}}
// CHECK-NEXT:    %big = tg.relu %x {tg.offset = 0 : i64} : tensor<25xf32>
// CHECK-NEXT:    %small = tg.reduce_sum %big {tg.offset = 128 : i64, axes = array<i64: 0>, keepdims = false} : tensor<25xf32> -> tensor<f32>
// CHECK-NEXT:    %prod = tg.mul %big, %small : (tensor<25xf32>, tensor<f32>) -> tensor<25xf32>
func.func @alignment(%x: tensor<25xf32>) -> tensor<25xf32> {
  %big = tg.relu %x : tensor<25xf32>
  %small = tg.reduce_sum %big {axes = array<i64: 0>, keepdims = false} : tensor<25xf32> -> tensor<f32>
  %prod = tg.mul %big, %small : (tensor<25xf32>, tensor<f32>) -> tensor<25xf32>
  func.return %prod : tensor<25xf32>
}

// -----

// A reshape is a view: no buffer of its own (no tg.offset), and its uses keep its
// input's buffer alive. %a lives 0-4 (through %v's last use), so %c (3-4) cannot reuse
// offset 0 although %a itself is last read at 1.
//   %a: 0, %b (2-3): 64, %c (3-4): 128; arena = 128 + 24 = 152, unplanned = 3 * 64 = 192

// CHECK-LABEL: func.func @reshape_view
// CHECK-SAME:    attributes {tg.memory = {arena = 152 : i64, unplanned = 192 : i64}}
// CHECK-NEXT:    %a = tg.relu %x {tg.offset = 0 : i64} : tensor<2x3xf32>
// CHECK-NEXT:    %v = tg.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
// CHECK-NEXT:    %b = tg.exp %v {tg.offset = 64 : i64} : tensor<6xf32>
// CHECK-NEXT:    %c = tg.neg %b {tg.offset = 128 : i64} : tensor<6xf32>
// CHECK-NEXT:    %d = tg.add %c, %v : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
// CHECK-NEXT:    func.return %d : tensor<6xf32>
func.func @reshape_view(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %a = tg.relu %x : tensor<2x3xf32>
  %v = tg.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
  %b = tg.exp %v : tensor<6xf32>
  %c = tg.neg %b : tensor<6xf32>
  %d = tg.add %c, %v : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  func.return %d : tensor<6xf32>
}

// -----

// The same with tg-fuse's output: a tg.fused made only of flatten/reshape is a view;
// a tg.fused that computes gets a buffer like any op.
//   %a: 0 (0-3), %b (2-3): 64; arena = 64 + 24 = 88, unplanned = 2 * 64 = 128

// CHECK-LABEL: func.func @fused_view
// CHECK-SAME:    attributes {tg.memory = {arena = 88 : i64, unplanned = 128 : i64}}
// CHECK-NEXT:    %a = tg.fused "relu"(%x) {tg.offset = 0 : i64} : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32> {
// CHECK:         %v = tg.fused "flatten_reshape"(%a) : (tensor<1x2x3xf32>) -> tensor<6xf32> {
// CHECK:         %b = tg.fused "exp"(%v) {tg.offset = 64 : i64} : (tensor<6xf32>) -> tensor<6xf32> {
// CHECK:         %d = tg.fused "add"(%b, %v) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32> {
func.func @fused_view(%x: tensor<1x2x3xf32>) -> tensor<6xf32> {
  %a = tg.fused "relu"(%x) : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32> {
  ^bb0(%x1: tensor<1x2x3xf32>):
    %r = tg.relu %x1 : tensor<1x2x3xf32>
    tg.yield %r : tensor<1x2x3xf32>
  }
  %v = tg.fused "flatten_reshape"(%a) : (tensor<1x2x3xf32>) -> tensor<6xf32> {
  ^bb0(%a1: tensor<1x2x3xf32>):
    %f = tg.flatten %a1 {axis = 1 : i64} : tensor<1x2x3xf32> -> tensor<1x6xf32>
    %s = tg.reshape %f : tensor<1x6xf32> -> tensor<6xf32>
    tg.yield %s : tensor<6xf32>
  }
  %b = tg.fused "exp"(%v) : (tensor<6xf32>) -> tensor<6xf32> {
  ^bb0(%v1: tensor<6xf32>):
    %e = tg.exp %v1 : tensor<6xf32>
    tg.yield %e : tensor<6xf32>
  }
  %d = tg.fused "add"(%b, %v) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32> {
  ^bb0(%b1: tensor<6xf32>, %v2: tensor<6xf32>):
    %s = tg.add %b1, %v2 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    tg.yield %s : tensor<6xf32>
  }
  func.return %d : tensor<6xf32>
}

// -----

// Function results are the caller's buffers: a returned value is not placed, nor is a
// buffer whose view is returned. Nothing is left to place here.

// CHECK-LABEL: func.func @results_not_placed
// CHECK-SAME:    attributes {tg.memory = {arena = 0 : i64, unplanned = 0 : i64}}
// CHECK-NEXT:    %a = tg.relu %x : tensor<2x3xf32>
// CHECK-NEXT:    %v = tg.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
// CHECK-NEXT:    %b = tg.exp %x : tensor<2x3xf32>
// CHECK-NEXT:    func.return %v, %b : tensor<6xf32>, tensor<2x3xf32>
func.func @results_not_placed(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>) {
  %a = tg.relu %x : tensor<2x3xf32>
  %v = tg.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
  %b = tg.exp %x : tensor<2x3xf32>
  func.return %v, %b : tensor<6xf32>, tensor<2x3xf32>
}

// -----

// Each function has its own arena; element sizes follow the type (f16: 2 bytes, i64: 8).
//   @half: %a 4 x 2 = 8 bytes (64 unplanned); @wide: %a 4 x 8 = 32 bytes, %b (1-2) at 64

// CHECK-LABEL: func.func @half
// CHECK-SAME:    attributes {tg.memory = {arena = 8 : i64, unplanned = 64 : i64}}
// CHECK-NEXT:    %a = tg.relu %x {tg.offset = 0 : i64} : tensor<4xf16>
// CHECK-LABEL: func.func @wide
// CHECK-SAME:    attributes {tg.memory = {arena = 96 : i64, unplanned = 128 : i64}}
// CHECK-NEXT:    %a = tg.neg %x {tg.offset = 0 : i64} : tensor<4xi64>
// CHECK-NEXT:    %b = tg.relu %a {tg.offset = 64 : i64} : tensor<4xi64>
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %a = tg.relu %x : tensor<4xf16>
  %b = tg.neg %a : tensor<4xf16>
  func.return %b : tensor<4xf16>
}
func.func @wide(%x: tensor<4xi64>) -> tensor<4xi64> {
  %a = tg.neg %x : tensor<4xi64>
  %b = tg.relu %a : tensor<4xi64>
  %c = tg.add %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  func.return %c : tensor<4xi64>
}
