// CMD: tessel-opt %s -o %o -p tg-fold-constants
// ERROR: cannot read weights
builtin.module attributes {tg.weights = "missing.weights.npz"} {
  func.func @main(%x: tensor<40xf32>) -> tensor<40xf32> {
    %w = tg.weight @w : tensor<40xf32>
    %n = tg.neg %w : tensor<40xf32>
    %y = tg.add %x, %n : (tensor<40xf32>, tensor<40xf32>) -> tensor<40xf32>
    func.return %y : tensor<40xf32>
  }
}
