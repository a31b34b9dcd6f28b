// CMD: tessel-opt %s -o %o
// ERROR: unknown VTA preset 'zcu9000'
vta.program @p config "zcu9000" {
  vta.finish
}
