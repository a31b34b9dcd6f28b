builtin.module {
  func.func @face_auth(%background: !img.frame<36x44x1xui8>, %w1: !img.frame<576x64x1xi8>, %w2: !img.frame<64x2x1xi8>) {
    %frames = img.source {fps = 1 : f64, camera = "wispcam"} : !img.stream<144x176x1xui8>
    %small = img.downsample %frames factor [4, 4] mode average : !img.stream<144x176x1xui8> -> !img.stream<36x44x1xui8>
    %diff = img.map %small, %background : (!img.stream<36x44x1xui8>, !img.frame<36x44x1xui8>) -> !img.stream<36x44x1xui8> {
    ^bb0(%a: i8, %bg: i8):
      %hi = arith.maxui %a, %bg : i8
      %lo = arith.minui %a, %bg : i8
      %d = arith.subi %hi, %lo : i8
      img.yield %d : i8
    }
    %energy = img.reduce %diff kind sum : !img.stream<36x44x1xui8> -> !img.stream<1x1x1xi32>
    %moving = img.map %energy : (!img.stream<1x1x1xi32>) -> !img.stream<1x1x1xui8> {
    ^bb0(%e: i32):
      %thr = arith.constant 8000 : i32
      %m = arith.cmpi sgt, %e, %thr : i32
      %one = arith.extui %m : i1 to i8
      img.yield %one : i8
    }
    %motion = img.gate %frames, %moving {pass_rate = 0.1 : f64} : !img.stream<144x176x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<144x176x1xui8>
    %ii = img.scan %motion : !img.stream<144x176x1xui8> -> !img.stream<144x176x1xi32>
    %haar = img.stencil %ii window [9, 9] border clamp : (!img.stream<144x176x1xi32>) -> !img.stream<144x176x1xi32> {
    ^bb0(%p0: i32, %p1: i32, %p2: i32, %p3: i32, %p4: i32, %p5: i32, %p6: i32, %p7: i32, %p8: i32, %p9: i32, %p10: i32, %p11: i32, %p12: i32, %p13: i32, %p14: i32, %p15: i32, %p16: i32, %p17: i32, %p18: i32, %p19: i32, %p20: i32, %p21: i32, %p22: i32, %p23: i32, %p24: i32, %p25: i32, %p26: i32, %p27: i32, %p28: i32, %p29: i32, %p30: i32, %p31: i32, %p32: i32, %p33: i32, %p34: i32, %p35: i32, %p36: i32, %p37: i32, %p38: i32, %p39: i32, %p40: i32, %p41: i32, %p42: i32, %p43: i32, %p44: i32, %p45: i32, %p46: i32, %p47: i32, %p48: i32, %p49: i32, %p50: i32, %p51: i32, %p52: i32, %p53: i32, %p54: i32, %p55: i32, %p56: i32, %p57: i32, %p58: i32, %p59: i32, %p60: i32, %p61: i32, %p62: i32, %p63: i32, %p64: i32, %p65: i32, %p66: i32, %p67: i32, %p68: i32, %p69: i32, %p70: i32, %p71: i32, %p72: i32, %p73: i32, %p74: i32, %p75: i32, %p76: i32, %p77: i32, %p78: i32, %p79: i32, %p80: i32):
      %l1 = arith.subi %p76, %p4 : i32
      %l2 = arith.subi %l1, %p72 : i32
      %l = arith.addi %l2, %p0 : i32
      %r1 = arith.subi %p80, %p8 : i32
      %r2 = arith.subi %r1, %p76 : i32
      %r = arith.addi %r2, %p4 : i32
      %f = arith.subi %l, %r : i32
      img.yield %f : i32
    }
    %strength = img.reduce %haar kind max : !img.stream<144x176x1xi32> -> !img.stream<1x1x1xi32>
    %face = img.map %strength : (!img.stream<1x1x1xi32>) -> !img.stream<1x1x1xui8> {
    ^bb0(%s: i32):
      %thr = arith.constant 2000 : i32
      %m = arith.cmpi sgt, %s, %thr : i32
      %one = arith.extui %m : i1 to i8
      img.yield %one : i8
    }
    %faces = img.gate %motion, %face {pass_rate = 0.5 : f64} : !img.stream<144x176x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<144x176x1xui8>
    %roi = img.crop %faces roi [60, 76, 24, 24] : !img.stream<144x176x1xui8> -> !img.stream<24x24x1xui8>
    %hidden = img.dense %roi, %w1 : !img.stream<24x24x1xui8>, !img.frame<576x64x1xi8> -> !img.stream<1x1x64xi32>
    %act = img.map %hidden : (!img.stream<1x1x64xi32>) -> !img.stream<1x1x64xi8> {
    ^bb0(%v: i32):
      %zero = arith.constant 0 : i32
      %r = arith.maxsi %v, %zero : i32
      %seven = arith.constant 7 : i32
      %s = arith.shrsi %r, %seven : i32
      %cap = arith.constant 127 : i32
      %c = arith.minsi %s, %cap : i32
      %n = arith.trunci %c : i32 to i8
      img.yield %n : i8
    }
    %scores = img.dense %act, %w2 : !img.stream<1x1x64xi8>, !img.frame<64x2x1xi8> -> !img.stream<1x1x2xi32>
    img.sink %scores : !img.stream<1x1x2xi32>
    func.return
  }
}
