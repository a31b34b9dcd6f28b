// Linear regression residuals of a batch of 4096 samples, every input secret:
//   out = y - (a*x + b)

func.func @linear_regression(%a: !hev.vec<4096>, %b: !hev.vec<4096>, %x: !hev.vec<4096>, %y: !hev.vec<4096>) -> !hev.vec<4096> attributes {hev.spec} {
  %ax = hev.spec.mul %a, %x : !hev.vec<4096>
  %pred = hev.spec.add %ax, %b : !hev.vec<4096>
  %res = hev.spec.sub %y, %pred : !hev.vec<4096>
  func.return %res : !hev.vec<4096>
}

// Hand-written baseline: the formula as written.
func.func @linear_regression_baseline(%a: !hev.vec<4096>, %b: !hev.vec<4096>, %x: !hev.vec<4096>, %y: !hev.vec<4096>) -> !hev.vec<4096> attributes {hev.implements = @linear_regression} {
  %ca = hev.encrypt %a : !hev.vec<4096> -> !hev.ct<4096>
  %cb = hev.encrypt %b : !hev.vec<4096> -> !hev.ct<4096>
  %cx = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %cy = hev.encrypt %y : !hev.vec<4096> -> !hev.ct<4096>
  %ax3 = hev.multiply %ca, %cx : !hev.ct<4096> -> !hev.ct<4096, size = 3>
  %ax = hev.relinearize %ax3 : !hev.ct<4096, size = 3> -> !hev.ct<4096>
  %pred = hev.add %ax, %cb : !hev.ct<4096>
  %res = hev.sub %cy, %pred : !hev.ct<4096>
  %out = hev.decrypt %res : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}

// Porcupine's program: y - a*x - b.
func.func @linear_regression_porcupine(%a: !hev.vec<4096>, %b: !hev.vec<4096>, %x: !hev.vec<4096>, %y: !hev.vec<4096>) -> !hev.vec<4096> attributes {hev.implements = @linear_regression} {
  %c0 = hev.encrypt %a : !hev.vec<4096> -> !hev.ct<4096>
  %c1 = hev.encrypt %b : !hev.vec<4096> -> !hev.ct<4096>
  %c2 = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %c3 = hev.encrypt %y : !hev.vec<4096> -> !hev.ct<4096>
  %c4 = hev.multiply %c0, %c2 : !hev.ct<4096> -> !hev.ct<4096, size = 3>
  %c5 = hev.relinearize %c4 : !hev.ct<4096, size = 3> -> !hev.ct<4096>
  %c6 = hev.sub %c3, %c5 : !hev.ct<4096>
  %c7 = hev.sub %c6, %c1 : !hev.ct<4096>
  %out = hev.decrypt %c7 : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}
