# Prints one REPORT table row per open-loop.sh tag: closed-loop calls/s (simdex / echo), open-loop
# p99 (simdex / echo), simdex server p99 (median and runs), echo server p99, simdex queued p99 per run.
# Run in this directory: python3 table.py TAG...
import json,sys,glob
def rep(d,t): return [r for r in d['reports'] if r['settings']['target']==t][0]
for tag in sys.argv[1:]:
    try:
        c=json.load(open(f'open-loop-{tag}-r1-c8.json')); o=json.load(open(f'open-loop-{tag}-r1-open.json'))
    except Exception as e:
        print(tag,'missing'); continue
    sc=rep(c,'simdex')['median']; ec=rep(c,'echo')['median']
    so=rep(o,'simdex'); eo=rep(o,'echo')
    sh=so['median'].get('serverHandlingMicros') or {}; eh=eo['median'].get('serverHandlingMicros') or {}
    runs=[ (x.get('serverHandlingMicros') or {}).get('p99') for x in so['runs']]
    q=[ (x.get('serverHandlingMicros') or {}).get('queuedP99') for x in so['runs']]
    print(f"| {tag} | {sc['requestsPerSecond']:.0f} / {ec['requestsPerSecond']:.0f} = {sc['requestsPerSecond']/ec['requestsPerSecond']:.3f} | {so['median']['latencyMicros']['p99']/1000:.2f} / {eo['median']['latencyMicros']['p99']/1000:.2f} = {so['median']['latencyMicros']['p99']/eo['median']['latencyMicros']['p99']:.2f}x | {sh.get('p99',0)/1000:.2f} ms ({' / '.join('%.2f'%(r/1000) for r in runs if r is not None)}) | {eh.get('p99',0)/1000:.2f} ms | {' / '.join('%.2f'%(r/1000) for r in q if r is not None)} |")
