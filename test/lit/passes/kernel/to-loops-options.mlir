// RUN: not %tessel-opt %s -p 'kernel-to-loops{schedules=1}' 2>&1 | %python %S/../../tools/Inputs/count_lines.py | filecheck %s --check-prefix=DICT
// RUN: not %tessel-opt %s -p 'kernel-to-loops{tile=14}' 2>&1 | %python %S/../../tools/Inputs/count_lines.py | filecheck %s --check-prefix=UNKNOWN
// RUN: not %tessel-opt %s -p 'tg-fuse,tg-to-kernel,kernel-to-loops{target=tpu}' 2>&1 | %python %S/../../tools/Inputs/count_lines.py | filecheck %s --check-prefix=TARGET

// The only error paths of kernel-to-loops reachable from the command line are its
// options: `target` (cpu or gpu) and `schedules` (stage function -> StageSchedule), is meant to be
// given programmatically (tuned schedules): no textual value can be a dict, so the CLI
// must refuse it in one line, exit 1, before running anything. The default schedule is
// valid by construction, so StageSchedule.validate's errors cannot be reached from here.
// (The wording after the pipeline is xDSL's; the checks keep only what names the problem.)

// DICT:      lines: 1
// DICT-NEXT: {{^}}tessel-opt: error: bad pass pipeline 'kernel-to-loops{schedules=1}': {{.*}}expected <class 'dict'>{{$}}

// UNKNOWN:      lines: 1
// UNKNOWN-NEXT: {{^}}tessel-opt: error: bad pass pipeline 'kernel-to-loops{tile=14}': {{.*}}["tile"] not found in expected arguments ["schedules", "target"]{{$}}

// TARGET:      lines: 1
// TARGET-NEXT: error: kernel-to-loops{target=tpu}: the target must be cpu or gpu

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tg.relu %x : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
