// CMD: tessel-opt %s -o %o
// ERROR: Shape mismatch in dense literal. Expected [3] shape from the type, but got [2] shape.
func.func @main() -> tensor<3xf32> {
  %c = tg.constant dense<[1.0, 2.0]> : tensor<3xf32>
  func.return %c : tensor<3xf32>
}
