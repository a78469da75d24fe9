# Per-thread CPU of a process over windows: python3 threadcpu.py PID INTERVAL COUNT
import os, sys, time
pid, interval, count = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
tick = os.sysconf('SC_CLK_TCK')
def snap():
    out = {}
    for t in os.listdir(f'/proc/{pid}/task'):
        try:
            s = open(f'/proc/{pid}/task/{t}/stat').read()
            name = s[s.index('(')+1:s.rindex(')')]
            f = s[s.rindex(')')+2:].split()
            out[t] = (name, int(f[11]) + int(f[12]))
        except Exception:
            pass
    return out
prev, pt = snap(), time.time()
for _ in range(count):
    time.sleep(interval)
    cur, ct = snap(), time.time()
    dt = ct - pt
    agg = {}
    for t, (name, v) in cur.items():
        d = v - prev.get(t, (name, v))[1] if t in prev else v
        key = name.rstrip('0123456789-') or name
        agg[key] = agg.get(key, 0) + d / tick / dt
    tot = sum(agg.values())
    top = sorted(agg.items(), key=lambda x: -x[1])[:6]
    print(time.strftime('%T'), f'total {tot*100:.0f}%', ' '.join(f'{k}:{v*100:.0f}%' for k, v in top), flush=True)
    prev, pt = cur, ct
