import json, subprocess, sys, collections
out = subprocess.run(['jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.ObjectAllocationSample', sys.argv[1]], capture_output=True, text=True).stdout
ev = json.loads(out)['recording']['events']
c = collections.Counter(); tot = 0
for e in ev:
    v = e['values']; w = v.get('weight', 1)
    if 'grpc' not in (v.get('eventThread') or {}).get('javaName', ''): continue
    tot += w
    frames = [f['method']['type']['name'].replace('/', '.').split('$$')[0] + '.' + f['method']['name'] + ':' + str(f.get('lineNumber')) for f in (v.get('stackTrace') or {}).get('frames', [])]
    s = next((f for f in frames if f.startswith('io.simdex.router.IndexRouter') or f.startswith('io.simdex.server') or f.startswith('io.simdex.router.Fanout') or f.startswith('io.simdex.router.LocalShard') or f.startswith('io.simdex.router.SimdexService')), None)
    if s: c[(s, (v.get('objectClass') or {}).get('name'))] += w
print('total simdex-frame share', sum(c.values())*100/tot)
for k, v in c.most_common(40): print(f'{v*100/tot:5.1f}% {k}')
