// CMD: tessel-opt %s -o %o
// ERROR: 'func.func' op value %x of type tensor<99999999999999999999999x2xf32> has 1999999999999999
func.func @main(%x: tensor<99999999999999999999999x2xf32>) -> tensor<99999999999999999999999x2xf32> {
  %y = tg.relu %x : tensor<99999999999999999999999x2xf32>
  func.return %y : tensor<99999999999999999999999x2xf32>
}
