import json, subprocess, sys, collections
out = subprocess.run(['jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.ObjectAllocationSample', sys.argv[1]], capture_output=True, text=True).stdout
ev = json.loads(out)['recording']['events']
tot = collections.Counter(); sub = collections.Counter(); thr = collections.Counter()
for e in ev:
    v = e['values']; w = v.get('weight', 1)
    thread = (v.get('eventThread') or {}).get('javaName', '')
    thr[thread.rstrip('0123456789-')] += w
    if 'grpc' not in thread: continue
    frames = [f['method']['type']['name'] + '.' + f['method']['name'] for f in (v.get('stackTrace') or {}).get('frames', [])]
    simdex = [f for f in frames if f.startswith('io.simdex') or f.startswith('io/simdex')]
    key = 'simdex' if simdex else 'grpc/netty'
    tot[key] += w
    if simdex:
        # innermost simdex frame
        sub[simdex[0].split('$$')[0]] += w
    if any('fillInStackTrace' in f for f in frames):
        tot['throwable:' + ' < '.join(frames[1:8])] += w
print(thr.most_common(8))
s = sum(v for k, v in tot.items() if not k.startswith('throwable'))
for k, v in tot.most_common(): print(f'{v*100/s:5.1f}% {k}')
print('-- innermost simdex frame')
for k, v in sub.most_common(25): print(f'{v*100/s:5.1f}% {k}')
