#!/bin/bash
# Drags to turn a plane in a real window and prints what docs/PERFORMANCE.md
# reports of it (Oblique planes, dragging to turn). Needs an X display
# (Xvfb), xdotool, ImageMagick's import and zarr-python 2:
#   python3 docs/dragvolume.py /dev/shm/big.ome.zarr   (once: 4 GB)
#   DISPLAY=:46 bash docs/dragturn.sh VASTVIEW /dev/shm/big.ome.zarr TRACE PAUSE_S "w [i] [plus ...]"
# The keys after opening (one xdotool key name each), a pause (the levels
# build meanwhile), then 100 moves of 2 pixels right, 20 ms apart, with the
# button held; the figures come from the viewer's --trace.
set -e
bin=$1 vol=$2 tr=$3 pause=$4 keys=${5:-w}
xdg=$(mktemp -d)
mkdir -p "$xdg/cache" "$xdg/config"
XDG_CACHE_HOME=$xdg/cache XDG_CONFIG_HOME=$xdg/config LANG=C.UTF-8 "$bin" --trace "$tr" "$vol" >"$xdg/log" 2>&1 &
pid=$!
for _ in $(seq 150); do grep -q first_image "$tr" 2>/dev/null && break; sleep 0.2; done
sleep 1
win=$(xdotool search --pid $pid | tail -1)
xdotool mousemove --window "$win" 500 250 click 1
sleep 0.5
for k in $keys; do xdotool key "$k"; sleep 0.2; done
sleep "$pause"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
xdotool mousemove --window "$win" 400 250 mousedown 1
for _ in $(seq 100); do xdotool mousemove_relative -- 2 0; sleep 0.02; done
xdotool mouseup 1
sleep 8
kill $pid; wait $pid || true
rm -rf "$xdg"
/usr/bin/python3 - "$tr" <<'PY'
import json, statistics, sys
tr = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
turns = []
for e in tr:
    if e.get('event') == 'frame_shown' and 'turn' in e and (not turns or e['turn'] != turns[-1]['turn']):
        turns.append(e)
drag = turns[1:]  # the first is the keys' turn
gaps = sorted(b['ms'] - a['ms'] for a, b in zip(drag, drag[1:]))
lat = sorted(e['latency_ms'] for e in drag)
pct = lambda v, p: v[min(len(v) - 1, int(p * len(v)))]
print(f"frames {len(drag)} ({sum(not e['complete'] for e in drag)} incomplete), levels {sorted({e['level'] for e in drag})}")
print(f"between frames median {statistics.median(gaps):.1f}, p90 {pct(gaps, .9):.1f}, p99 {pct(gaps, .99):.1f} ms")
print(f"latency median {statistics.median(lat):.1f}, p99 {pct(lat, .99):.1f} ms")
PY
