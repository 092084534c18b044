package ui

import (
	"context"
	"time"

	"vastview/loader"
	"vastview/render"
)

// histKey names the plane a histogram was computed for.
type histKey struct {
	s           *session
	orientation render.Orientation
	t, c, at    int
	level       int
}

// histRequest asks for the histogram of a plane at a level.
type histRequest struct {
	key  histKey
	view render.View
}

// histWorker computes the contrast panel's histogram off the UI goroutine,
// newest request first, from the level the frame was drawn at (its
// chunks are in memory by then).
type histWorker struct {
	want chan histRequest // capacity 1
	last histKey          // touched on the UI goroutine only
}

func newHistWorker() *histWorker { return &histWorker{want: make(chan histRequest, 1)} }

// ask replaces any waiting request; it never blocks.
func (h *histWorker) ask(r histRequest) {
	for {
		select {
		case h.want <- r:
			return
		default:
			select {
			case <-h.want:
			default:
			}
		}
	}
}

// histBins is the number of bars of the histogram.
const histBins = 256

// histSettle is how long the plane must stay put before its histogram is
// computed: scrubbing through planes does not redraw the panel.
const histSettle = 200 * time.Millisecond

func (h *histWorker) run(v *Viewer) {
	for r := range h.want {
		for settled := false; !settled; {
			select {
			case r = <-h.want:
			case <-time.After(histSettle):
				settled = true
			}
		}
		pyr := r.key.s.pyr
		row, col, _ := r.view.Orientation.Axes()
		at := map[byte]int{}
		for _, a := range []byte("TCZYX") {
			if a != row && a != col && pyr.Meta().AxisIndex(a) >= 0 {
				at[a] = levelIndex(pyr.Meta(), r.key.level, a, r.view.At(a))
			}
		}
		buf, _, _, err := loader.ReadPlane(context.Background(), pyr, r.key.level,
			loader.Plane{Orientation: r.view.Orientation.String(), At: at})
		if err != nil {
			continue
		}
		hist := computeHistogram(buf, pyr.Meta().DType, histBins)
		uiDo(func() {
			if v.s == r.key.s {
				v.contrast.setHistogram(hist)
				v.contrast.setWindow(v.view.Lo, v.view.Hi)
			}
		})
	}
}

// levelIndex maps a level-0 index on axis a to level k's (levels halve
// their axes, so the index is divided by the ratio of the lengths).
func levelIndex(m *loader.Meta, k int, a byte, i int) int {
	ax := m.AxisIndex(a)
	n0, nk := m.Levels[0].Shape[ax], m.Levels[k].Shape[ax]
	return clampInt(i*nk/max(n0, 1), 0, nk-1)
}
