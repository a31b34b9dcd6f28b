// CMD: tessel-opt %s -o %o
// ERROR: 'sched.split' op factors must be positive, got [0]
sched.stage "s" {
  %i, %j = sched.axes ["i", "j"]
  %o, %n = sched.split %i by 0
}
