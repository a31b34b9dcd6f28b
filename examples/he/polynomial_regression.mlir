// Polynomial regression residuals of a batch of 4096 samples, every input secret:
//   out = y - (a*x^2 + b*x + c)

func.func @polynomial_regression(%a: !hev.vec<4096>, %b: !hev.vec<4096>, %c: !hev.vec<4096>, %x: !hev.vec<4096>, %y: !hev.vec<4096>) -> !hev.vec<4096> attributes {hev.spec} {
  %xx = hev.spec.mul %x, %x : !hev.vec<4096>
  %axx = hev.spec.mul %a, %xx : !hev.vec<4096>
  %bx = hev.spec.mul %b, %x : !hev.vec<4096>
  %s = hev.spec.add %axx, %bx : !hev.vec<4096>
  %pred = hev.spec.add %s, %c : !hev.vec<4096>
  %res = hev.spec.sub %y, %pred : !hev.vec<4096>
  func.return %res : !hev.vec<4096>
}

// Hand-written baseline: x^2, a*x^2 and b*x (three multiplications, depth 2).
func.func @polynomial_regression_baseline(%a: !hev.vec<4096>, %b: !hev.vec<4096>, %c: !hev.vec<4096>, %x: !hev.vec<4096>, %y: !hev.vec<4096>) -> !hev.vec<4096> attributes {hev.implements = @polynomial_regression} {
  %ca = hev.encrypt %a : !hev.vec<4096> -> !hev.ct<4096>
  %cb = hev.encrypt %b : !hev.vec<4096> -> !hev.ct<4096>
  %cc = hev.encrypt %c : !hev.vec<4096> -> !hev.ct<4096>
  %cx = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %cy = hev.encrypt %y : !hev.vec<4096> -> !hev.ct<4096>
  %xx3 = hev.multiply %cx, %cx : !hev.ct<4096> -> !hev.ct<4096, size = 3>
  %xx = hev.relinearize %xx3 : !hev.ct<4096, size = 3> -> !hev.ct<4096>
  %axx3 = hev.multiply %ca, %xx : !hev.ct<4096> -> !hev.ct<4096, size = 3>
  %axx = hev.relinearize %axx3 : !hev.ct<4096, size = 3> -> !hev.ct<4096>
  %bx3 = hev.multiply %cb, %cx : !hev.ct<4096> -> !hev.ct<4096, size = 3>
  %bx = hev.relinearize %bx3 : !hev.ct<4096, size = 3> -> !hev.ct<4096>
  %s = hev.add %axx, %bx : !hev.ct<4096>
  %pred = hev.add %s, %cc : !hev.ct<4096>
  %res = hev.sub %cy, %pred : !hev.ct<4096>
  %out = hev.decrypt %res : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}

// Porcupine's program: Horner's rule, x*(a*x + b) + c (two multiplications).
func.func @polynomial_regression_porcupine(%a: !hev.vec<4096>, %b: !hev.vec<4096>, %c: !hev.vec<4096>, %x: !hev.vec<4096>, %y: !hev.vec<4096>) -> !hev.vec<4096> attributes {hev.implements = @polynomial_regression} {
  %c0 = hev.encrypt %a : !hev.vec<4096> -> !hev.ct<4096>
  %c1 = hev.encrypt %b : !hev.vec<4096> -> !hev.ct<4096>
  %c2 = hev.encrypt %c : !hev.vec<4096> -> !hev.ct<4096>
  %c3 = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
  %c4 = hev.encrypt %y : !hev.vec<4096> -> !hev.ct<4096>
  %c5 = hev.multiply %c0, %c3 : !hev.ct<4096> -> !hev.ct<4096, size = 3>
  %c6 = hev.relinearize %c5 : !hev.ct<4096, size = 3> -> !hev.ct<4096>
  %c7 = hev.add %c6, %c1 : !hev.ct<4096>
  %c8 = hev.multiply %c7, %c3 : !hev.ct<4096> -> !hev.ct<4096, size = 3>
  %c9 = hev.relinearize %c8 : !hev.ct<4096, size = 3> -> !hev.ct<4096>
  %c10 = hev.add %c9, %c2 : !hev.ct<4096>
  %c11 = hev.sub %c4, %c10 : !hev.ct<4096>
  %out = hev.decrypt %c11 : !hev.ct<4096> -> !hev.vec<4096>
  func.return %out : !hev.vec<4096>
}
