# Aggregates jdk.ObjectAllocationSample weight by top simdex/app frame and by type: python3 alloc.py X.jfr
import json, subprocess, sys, collections
out = subprocess.run(['jfr', 'print', '--json', '--events', sys.argv[2] if len(sys.argv) > 2 else 'jdk.ObjectAllocationSample', sys.argv[1]], capture_output=True, text=True).stdout
ev = json.loads(out)['recording']['events']
by_type, by_frame, by_site = collections.Counter(), collections.Counter(), collections.Counter()
total = 0
for e in ev:
    v = e['values']
    w = v.get('weight', 1)
    thread = (v.get('eventThread') or {}).get('javaName', '')
    if 'grpc' not in thread and 'simdex' not in thread:
        continue
    total += w
    t = (v.get('objectClass') or {}).get('name', '?')
    by_type[t] += w
    frames = [f['method']['type']['name'] + '.' + f['method']['name'] for f in (v.get('stackTrace') or {}).get('frames', [])]
    app = next((f for f in frames if f.startswith('io.simdex')), frames[0] if frames else '?')
    by_frame[app] += w
    by_site[(t, frames[0] if frames else '?', app)] += w
print('total MB', total / 1e6)
for name, c in (('type', by_type), ('first simdex frame', by_frame)):
    print('--', name)
    for k, v in c.most_common(25):
        print(f'{v*100/total:5.1f}%  {k}')
print('-- sites')
for k, v in by_site.most_common(30):
    print(f'{v*100/total:5.1f}%  {k}')
