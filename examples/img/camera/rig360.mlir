builtin.module {
  func.func @rig360(%lut: !img.frame<2048x2048x2xi16>) {
    %raw = img.source {fps = 30 : f64, camera = "rig", count = 16 : i64} : !img.stream<2160x3840x1xui8>
    %r = img.stencil %raw window [3, 3] border mirror : (!img.stream<2160x3840x1xui8>) -> !img.stream<2160x3840x1xui8> {
    ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
      %w0 = arith.extui %p0 : i8 to i16
      %w1 = arith.extui %p2 : i8 to i16
      %w2 = arith.extui %p6 : i8 to i16
      %w3 = arith.extui %p8 : i8 to i16
      %s1 = arith.addi %w0, %w1 : i16
      %s2 = arith.addi %s1, %w2 : i16
      %s3 = arith.addi %s2, %w3 : i16
      %two = arith.constant 2 : i16
      %q = arith.shrui %s3, %two : i16
      %o = arith.trunci %q : i16 to i8
      img.yield %o : i8
    }
    %g = img.stencil %raw window [3, 3] border mirror : (!img.stream<2160x3840x1xui8>) -> !img.stream<2160x3840x1xui8> {
    ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
      %w0 = arith.extui %p1 : i8 to i16
      %w1 = arith.extui %p3 : i8 to i16
      %w2 = arith.extui %p5 : i8 to i16
      %w3 = arith.extui %p7 : i8 to i16
      %s1 = arith.addi %w0, %w1 : i16
      %s2 = arith.addi %s1, %w2 : i16
      %s3 = arith.addi %s2, %w3 : i16
      %two = arith.constant 2 : i16
      %q = arith.shrui %s3, %two : i16
      %o = arith.trunci %q : i16 to i8
      img.yield %o : i8
    }
    %bl = img.stencil %raw window [3, 3] border mirror : (!img.stream<2160x3840x1xui8>) -> !img.stream<2160x3840x1xui8> {
    ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
      %w0 = arith.extui %p0 : i8 to i16
      %w1 = arith.extui %p2 : i8 to i16
      %w2 = arith.extui %p6 : i8 to i16
      %w3 = arith.extui %p8 : i8 to i16
      %s1 = arith.addi %w0, %w1 : i16
      %s2 = arith.addi %s1, %w2 : i16
      %s3 = arith.addi %s2, %w3 : i16
      %two = arith.constant 2 : i16
      %q = arith.shrui %s3, %two : i16
      %o = arith.trunci %q : i16 to i8
      img.yield %o : i8
    }
    %rb = img.map %r : (!img.stream<2160x3840x1xui8>) -> !img.stream<2160x3840x1xui8> {
    ^bb0(%v: i8):
      %w = arith.extui %v : i8 to i16
      %gain = arith.constant 18 : i16
      %m = arith.muli %w, %gain : i16
      %four = arith.constant 4 : i16
      %s = arith.shrui %m, %four : i16
      %cap = arith.constant 255 : i16
      %c = arith.minui %s, %cap : i16
      %o = arith.trunci %c : i16 to i8
      img.yield %o : i8
    }
    %gb = img.map %g : (!img.stream<2160x3840x1xui8>) -> !img.stream<2160x3840x1xui8> {
    ^bb0(%v: i8):
      %w = arith.extui %v : i8 to i16
      %gain = arith.constant 16 : i16
      %m = arith.muli %w, %gain : i16
      %four = arith.constant 4 : i16
      %s = arith.shrui %m, %four : i16
      %cap = arith.constant 255 : i16
      %c = arith.minui %s, %cap : i16
      %o = arith.trunci %c : i16 to i8
      img.yield %o : i8
    }
    %blb = img.map %bl : (!img.stream<2160x3840x1xui8>) -> !img.stream<2160x3840x1xui8> {
    ^bb0(%v: i8):
      %w = arith.extui %v : i8 to i16
      %gain = arith.constant 20 : i16
      %m = arith.muli %w, %gain : i16
      %four = arith.constant 4 : i16
      %s = arith.shrui %m, %four : i16
      %cap = arith.constant 255 : i16
      %c = arith.minui %s, %cap : i16
      %o = arith.trunci %c : i16 to i8
      img.yield %o : i8
    }
    %rgb = img.merge %rb, %gb, %blb : (!img.stream<2160x3840x1xui8>, !img.stream<2160x3840x1xui8>, !img.stream<2160x3840x1xui8>) -> !img.stream<2160x3840x3xui8>
    %rect = img.remap %rgb, %lut max_displacement 64 : !img.stream<2160x3840x3xui8>, !img.frame<2048x2048x2xi16> -> !img.stream<2048x2048x3xui8>
    %vr = img.extract %rect channel 0 : !img.stream<2048x2048x3xui8> -> !img.stream<2048x2048x1xui8>
    %vg = img.extract %rect channel 1 : !img.stream<2048x2048x3xui8> -> !img.stream<2048x2048x1xui8>
    %vb = img.extract %rect channel 2 : !img.stream<2048x2048x3xui8> -> !img.stream<2048x2048x1xui8>
    %luma = img.map %vr, %vg, %vb : (!img.stream<2048x2048x1xui8>, !img.stream<2048x2048x1xui8>, !img.stream<2048x2048x1xui8>) -> !img.stream<2048x2048x1xui8> {
    ^bb0(%a: i8, %c: i8, %d: i8):
      %x = arith.extui %a : i8 to i16
      %y = arith.extui %c : i8 to i16
      %z = arith.extui %d : i8 to i16
      %y2 = arith.addi %y, %y : i16
      %s = arith.addi %x, %y2 : i16
      %t = arith.addi %s, %z : i16
      %two = arith.constant 2 : i16
      %q = arith.shrui %t, %two : i16
      %o = arith.trunci %q : i16 to i8
      img.yield %o : i8
    }
    %flow = img.stencil %luma window [5, 5] border clamp : (!img.stream<2048x2048x1xui8>) -> !img.stream<2048x2048x1xi16> {
    ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8, %p9: i8, %p10: i8, %p11: i8, %p12: i8, %p13: i8, %p14: i8, %p15: i8, %p16: i8, %p17: i8, %p18: i8, %p19: i8, %p20: i8, %p21: i8, %p22: i8, %p23: i8, %p24: i8):
      %x10 = arith.extui %p10 : i8 to i16
      %x14 = arith.extui %p14 : i8 to i16
      %x2 = arith.extui %p2 : i8 to i16
      %x22 = arith.extui %p22 : i8 to i16
      %gx = arith.subi %x14, %x10 : i16
      %gy = arith.subi %x22, %x2 : i16
      %f = arith.addi %gx, %gy : i16
      img.yield %f : i16
    }
    %svr = img.map %vr, %flow : (!img.stream<2048x2048x1xui8>, !img.stream<2048x2048x1xi16>) -> !img.stream<2048x2048x1xui8> {
    ^bb0(%v: i8, %f: i16):
      %t = arith.trunci %f : i16 to i8
      %o = arith.addi %v, %t : i8
      img.yield %o : i8
    }
    %svg = img.map %vg, %flow : (!img.stream<2048x2048x1xui8>, !img.stream<2048x2048x1xi16>) -> !img.stream<2048x2048x1xui8> {
    ^bb0(%v: i8, %f: i16):
      %t = arith.trunci %f : i16 to i8
      %o = arith.addi %v, %t : i8
      img.yield %o : i8
    }
    %svb = img.map %vb, %flow : (!img.stream<2048x2048x1xui8>, !img.stream<2048x2048x1xi16>) -> !img.stream<2048x2048x1xui8> {
    ^bb0(%v: i8, %f: i16):
      %t = arith.trunci %f : i16 to i8
      %o = arith.addi %v, %t : i8
      img.yield %o : i8
    }
    %ods = img.merge %svr, %svg, %svb : (!img.stream<2048x2048x1xui8>, !img.stream<2048x2048x1xui8>, !img.stream<2048x2048x1xui8>) -> !img.stream<2048x2048x3xui8>
    %ods2 = img.downsample %ods factor [2, 2] mode average : !img.stream<2048x2048x3xui8> -> !img.stream<1024x1024x3xui8>
    %video = img.encode %ods2 {ratio = 0.005 : f64, ops_per_pixel = 200 : f64} : !img.stream<1024x1024x3xui8> -> !img.stream<1024x1024x3xui8>
    img.sink %video : !img.stream<1024x1024x3xui8>
    func.return
  }
}
