import json, subprocess, sys, collections
out = subprocess.run(['jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.ObjectAllocationSample', sys.argv[1]], capture_output=True, text=True).stdout
ev = json.loads(out)['recording']['events']
c = collections.Counter(); tot = 0
for e in ev:
    v = e['values']; w = v.get('weight', 1)
    if 'grpc' not in (v.get('eventThread') or {}).get('javaName', ''): continue
    tot += w
    frames = [f['method']['type']['name'].replace('/', '.').split('$$')[0] + '.' + f['method']['name'] + ':' + str(f.get('lineNumber')) for f in (v.get('stackTrace') or {}).get('frames', [])]
    if any(sys.argv[2] in f for f in frames):
        c[' < '.join(frames[:6])] += w
for k, v in c.most_common(int(sys.argv[3]) if len(sys.argv) > 3 else 15): print(f'{v*100/tot:5.1f}% {k}')
