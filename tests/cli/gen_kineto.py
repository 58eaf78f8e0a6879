# Writes a Kineto trace (PyTorch profiler, pretty-printed as Kineto writes
# it) of N kernels named <prefix><i>, each with its launch call, and one
# user annotation every 10 kernels, to stdout. Options:
#   N PREFIX [BASE_US] [--base-ns NS]  times are µs after NS (written at the
#   end as baseTimeNanoseconds, as ROCm traces do), else µs since 1970
#   --device                           a deviceProperties element first
#   --kernel-first                     each kernel before its launch call (CUDA traces)
#   --no-launch                        no launch calls
#   --unclosed                         no "]" and "}" at the end (its writer stopped)
import sys
a = sys.argv[1:]
n = int(a[0]); pre = a[1]
base = int(a[2]) if len(a) > 2 and not a[2].startswith('--') else 1712195495000000
base_ns = None
if '--base-ns' in a:
    base_ns = int(a[a.index('--base-ns') + 1])
w = sys.stdout.write
w('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n')
if '--device' in a:
    w('    {\n      "id": 0, "name": "NVIDIA A100-PG509-200", "totalGlobalMem": 42297524224\n    }\n')
w('  ],\n  "traceEvents": [\n')
first = True
def ev(cat, name, ts, dur, args):
    global first
    if not first:
        w(',\n')
    first = False
    w('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": 0, "tid": 7,\n'
      '    "ts": %d.250, "dur": %s,\n    "args": {\n      %s\n    }\n  }' % (cat, name, ts, dur, args))
def launch(i):
    if '--no-launch' not in a:
        ev('cuda_runtime', 'cudaLaunchKernel', base + 10 * i, '3.5', '"correlation": %d' % (i + 1))
for i in range(n):
    if '--kernel-first' not in a:
        launch(i)
    ev('kernel', '%s%d' % (pre, i), base + 10 * i + 5, '%d.5' % (i % 7 + 1),
       '"device": 0, "stream": 7, "correlation": %d' % (i + 1))
    if '--kernel-first' in a:
        launch(i)
    if i % 10 == 0:
        ev('user_annotation', '%sstep%d' % (pre, i // 10), base + 10 * i, '8', '"External id": %d' % i)
if '--unclosed' in a:
    w('\n')
    sys.exit(0)
w('\n  ],\n  "traceName": "gen"')
if base_ns is not None:
    w(',\n  "baseTimeNanoseconds": %d' % base_ns)
w('\n}\n')
