# Execution samples of grpc worker threads: share by "category" (inclusive) and top leaf frames. python3 cpu.py X.jfr
import json, subprocess, sys, collections
out = subprocess.run(['jfr', 'print', '--json', '--stack-depth', '96', '--events', 'jdk.ExecutionSample', sys.argv[1]], capture_output=True, text=True).stdout
ev = json.loads(out)['recording']['events']
incl = collections.Counter(); leaf = collections.Counter(); n = 0
for e in ev:
    v = e['values']
    if 'grpc-default-worker' not in (v.get('sampledThread') or {}).get('javaName', ''): continue
    frames = [f['method']['type']['name'].replace('/', '.') + '.' + f['method']['name'] for f in (v.get('stackTrace') or {}).get('frames', [])]
    n += 1
    leaf[frames[0] if frames else '?'] += 1
    seen = set()
    for f in frames:
        k = f.split('$$')[0]
        if k.startswith('io.simdex') or any(s in k for s in ('SimdexService.query', 'Protobuf', 'GeneratedMessage', 'ServerImpl', 'NettyServerHandler', 'Http2', 'ByteBuf', 'epoll', 'MessageFramer', 'MessageDeframer')):
            if k not in seen:
                seen.add(k); incl[k] += 1
print('samples', n)
for k, v in incl.most_common(45): print(f'{v*100/n:5.1f}% {k}')
print('-- leaf')
for k, v in leaf.most_common(30): print(f'{v*100/n:5.1f}% {k}')
