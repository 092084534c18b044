import json, os, subprocess, sys, time, statistics
binp, f, runs, extra = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]  # extra: flags such as --overlay labels.tif
env = dict(os.environ, DISPLAY=os.environ.get('DISPLAY', ':50'), XDG_CACHE_HOME='/tmp/meas/cache-' + os.path.basename(binp), LANG='en_US.UTF-8')
def events(tr):
    out = []
    try:
        for l in open(tr):
            try: out.append(json.loads(l))
            except Exception: pass
    except FileNotFoundError: pass
    return out
def wait(tr, pred, to=60):
    t0 = time.time()
    while time.time() - t0 < to:
        ev = events(tr)
        if pred(ev): return ev
        time.sleep(0.05)
    raise SystemExit('timeout')
for r in range(runs):
    tr = f'/tmp/meas/trace-{os.path.basename(binp)}-{r}.jsonl'
    if os.path.exists(tr): os.remove(tr)
    p = subprocess.Popen([binp, '--trace', tr] + extra + [f], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ev = wait(tr, lambda ev: any(e['event'] == 'first_image' for e in ev))
    op = next(e for e in ev if e['event'] == 'open'); fi = next(e for e in ev if e['event'] == 'first_image')
    time.sleep(8 if r else float(os.environ.get('HELDKEY_WARM', 40)))  # the first run builds the levels into the disk cache
    win = subprocess.run(['xdotool', 'search', '--onlyvisible', '--name', 'vastview'], env=env, capture_output=True, text=True).stdout.split()[0]
    subprocess.run(['xdotool', 'windowactivate', '--sync', win], env=env)
    subprocess.run(['xdotool', 'mousemove', '--window', win, '300', '300'], env=env)
    n0 = len(events(tr))
    subprocess.run(['xdotool', 'key', 'Home'], env=env); time.sleep(1)
    n0 = len(events(tr))
    subprocess.run(['xdotool', 'keydown', 'period'], env=env); time.sleep(3); subprocess.run(['xdotool', 'keyup', 'period'], env=env)
    time.sleep(1)
    ev = events(tr)[n0:]
    keys = [e for e in ev if e['event'] == 'key']
    t0 = keys[0]['ms'] if keys else ev[0]['ms']
    fr = [e for e in ev if e['event'] == 'frame_shown' and t0 <= e['ms'] <= t0 + 3000]
    lat = sorted(e.get('latency_ms', 0) for e in fr)
    holes = sum(1 for e in fr if not e.get('complete', True))
    p99 = lat[min(len(lat)-1, int(0.99*len(lat)))] if lat else 0
    print(f"{os.path.basename(binp)} run {r}: open->first_image {fi['ms']-op['ms']:.0f} ms; held: {len(fr)/3:.1f} frames/s median {statistics.median(lat) if lat else 0:.1f} ms p99 {p99:.1f} ms incomplete {holes} with layers {sum(1 for e in fr if e.get('layers'))}", flush=True)
    p.terminate(); p.wait(10)
