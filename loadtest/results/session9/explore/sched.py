# Every INTERVAL s: per process (PIDs), CPU%, run-queue wait % summed over threads named like PREFIX,
# and process minor/major faults. python3 sched.py INTERVAL COUNT PID[:label] ...
import os, sys, time
interval, count = float(sys.argv[1]), int(sys.argv[2])
procs = [(int(a.split(':')[0]), a.split(':')[1] if ':' in a else a) for a in sys.argv[3:]]
tick = os.sysconf('SC_CLK_TCK')
def snap(pid):
    run = wait = 0; top = {}
    for t in os.listdir(f'/proc/{pid}/task'):
        try:
            r, w, _ = open(f'/proc/{pid}/task/{t}/schedstat').read().split()
            s = open(f'/proc/{pid}/task/{t}/stat').read()
            name = s[s.index('(')+1:s.rindex(')')]
            top[t] = (name, int(r), int(w))
        except Exception: pass
    f = open(f'/proc/{pid}/stat').read(); f = f[f.rindex(')')+2:].split()
    return top, int(f[7]), int(f[9])
def mstat():
    l = open('/proc/stat').readline().split()[1:]; v = list(map(int, l)); return sum(v), v[3] + v[4]
prev = {p: snap(p) for p, _ in procs}; pm = mstat(); pt = time.time()
for _ in range(count):
    time.sleep(interval)
    now = time.time(); dt = now - pt; cm = mstat()
    busy = 1 - (cm[1] - pm[1]) / max(1, cm[0] - pm[0])
    line = [time.strftime('%T'), f'machine {busy*200:.0f}%']
    for p, label in procs:
        cur = snap(p); a, b = prev[p], cur
        run = sum(v[1] - a[0].get(t, (0, 0, 0))[1] for t, v in b[0].items())
        el = [(v[1] - a[0].get(t, (0, 0, 0))[1], v[2] - a[0].get(t, (0, 0, 0))[2]) for t, v in b[0].items() if 'worker' in v[0] or 'ELG' in v[0]]
        elrun = sum(x[0] for x in el); elwait = sum(x[1] for x in el)
        line.append(f'| {label} cpu {run/dt/1e7:.0f}% eventloops run {elrun/dt/1e7:.0f}% runq-wait {elwait/dt/1e7:.1f}% minflt {b[1]-a[1]} majflt {b[2]-a[2]}')
        prev[p] = cur
    print(' '.join(line), flush=True)
    pm = cm; pt = now
