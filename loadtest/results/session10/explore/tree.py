# Inclusive tree under a frame: python3 tree.py X.jfr ROOTSUBSTR DEPTH MINPCT
import json, subprocess, sys, collections
out = subprocess.run(['jfr', 'print', '--json', '--stack-depth', '128', '--events', 'jdk.ExecutionSample', sys.argv[1]], capture_output=True, text=True).stdout
ev = json.loads(out)['recording']['events']
root, depth, minpct = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
paths = collections.Counter(); n = 0
for e in ev:
    v = e['values']
    if 'grpc-default-worker' not in (v.get('sampledThread') or {}).get('javaName', ''): continue
    n += 1
    frames = [f['method']['type']['name'].replace('/', '.').split('$$')[0] + '.' + f['method']['name'] + ':' + str(f.get('lineNumber')) for f in (v.get('stackTrace') or {}).get('frames', [])][::-1]
    idx = next((i for i, f in enumerate(frames) if root in f), None)
    if idx is None: continue
    sub = frames[idx:idx + depth]
    for d in range(1, len(sub) + 1):
        paths[tuple(sub[:d])] += 1
print('samples', n)
def show(prefix, ind):
    kids = sorted(((k, v) for k, v in paths.items() if len(k) == len(prefix) + 1 and k[:len(prefix)] == prefix), key=lambda x: -x[1])
    for k, v in kids:
        if v * 100 / n >= minpct:
            print(f'{v*100/n:5.1f}% ' + '  ' * ind + k[-1])
            show(k, ind + 1)
for k, v in paths.items():
    if len(k) == 1:
        print(f'{v*100/n:5.1f}% {k[0]}'); show(k, 1)
