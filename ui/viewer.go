// Package ui is vastview's window: it turns keys, mouse and drops into view
// changes, has the pictures drawn off the UI goroutine, and shows them. It
// does no pixel math and no I/O on the UI goroutine.
package ui

import (
	"context"
	"fmt"
	"image"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"vastview/loader"
	"vastview/render"
)

// Options configure the viewer.
type Options struct {
	// Open opens a dropped path; errors are shown and the current data stays.
	Open func(path string) (loader.Source, error)
	// Trace, when non-nil, receives the interaction events.
	Trace *Tracer
}

// frame is one finished picture and the view it shows.
type frame struct {
	img   *image.RGBA
	pos   position
	asked time.Time // when the input that asked for it came
	bytes int
	label string
}

// request asks the drawing goroutine for a view.
type request struct {
	src   loader.Source
	pos   position
	asked time.Time
}

// Viewer is the main window. Its methods run on the UI goroutine unless
// they say otherwise.
type Viewer struct {
	opts   Options
	win    fyne.Window
	img    *canvas.Image
	status *widget.Label

	src  loader.Source
	name string
	pos  position
	mods modifiers

	want    chan request // capacity 1: only the newest request waits
	latest  atomic.Pointer[frame]
	pending atomic.Bool // a fyne.Do that shows latest is queued
	shown   bool

	rangeMu sync.Mutex
	rangeOf loader.Source // the source lo/hi were computed for
	lo, hi  float64
}

// Run opens the window on src (named name) and returns when it is closed.
func Run(src loader.Source, name string, opts Options) {
	a := app.NewWithID("io.vastview.viewer")
	v := newViewer(a, opts)
	v.setSource(src, name)
	go v.draw()
	v.win.ShowAndRun()
}

func newViewer(a fyne.App, opts Options) *Viewer {
	v := &Viewer{opts: opts, want: make(chan request, 1)}
	v.win = a.NewWindow("vastview")
	v.img = canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))
	v.img.FillMode = canvas.ImageFillContain
	v.img.ScaleMode = canvas.ImageScaleFastest
	v.status = widget.NewLabel("")
	v.win.SetContent(container.NewBorder(nil, v.status, nil, nil, v.img))
	v.win.Resize(fyne.NewSize(1024, 800))
	v.win.Canvas().SetOnTypedKey(v.typedKey)
	if dc, ok := v.win.Canvas().(desktop.Canvas); ok {
		dc.SetOnKeyDown(func(e *fyne.KeyEvent) { v.setModifier(e.Name, true) })
		dc.SetOnKeyUp(func(e *fyne.KeyEvent) { v.setModifier(e.Name, false) })
	}
	v.win.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) { v.dropped(uris) })
	return v
}

func (v *Viewer) setModifier(k fyne.KeyName, down bool) {
	switch k {
	case desktop.KeyShiftLeft, desktop.KeyShiftRight:
		v.mods.shift = down
	case desktop.KeyControlLeft, desktop.KeyControlRight:
		v.mods.ctrl = down
	}
}

// setSource shows a new source at its middle plane.
func (v *Viewer) setSource(src loader.Source, name string) {
	old := v.src
	v.src, v.name = src, name
	m := src.Meta()
	v.pos = position{z: m.Size('Z') / 2}
	v.win.SetTitle("vastview — " + filepath.Base(name))
	v.opts.Trace.Event("open", map[string]any{"path": name})
	v.ask(time.Now())
	if old != nil {
		go old.Close() // the drawing goroutine may still finish a read of it
	}
}

func (v *Viewer) typedKey(e *fyne.KeyEvent) {
	now := time.Now()
	v.opts.Trace.Event("key", map[string]any{"key": string(e.Name)})
	switch e.Name {
	case fyne.KeyC:
		v.rangeMu.Lock()
		v.rangeOf = nil // recompute auto-contrast on the next frame
		v.rangeMu.Unlock()
		v.ask(now)
		return
	}
	if p, ok := navigate(v.src.Meta(), v.pos, e.Name, v.mods); ok {
		v.pos = p
		v.ask(now)
	}
}

// ask replaces any waiting request by the current view.
func (v *Viewer) ask(at time.Time) {
	r := request{src: v.src, pos: v.pos, asked: at}
	for {
		select {
		case v.want <- r:
			return
		default:
			select {
			case <-v.want:
			default:
			}
		}
	}
}

// draw runs on its own goroutine: it reads and renders the newest request
// and publishes the frame through one slot and at most one pending fyne.Do.
func (v *Viewer) draw() {
	for r := range v.want {
		f, err := v.render(r)
		if err != nil {
			v.opts.Trace.Event("error", map[string]any{"message": err.Error()})
			fyne.Do(func() { v.status.SetText(err.Error()) })
			continue
		}
		v.latest.Store(f)
		if v.pending.CompareAndSwap(false, true) {
			fyne.Do(v.show)
		}
	}
}

func (v *Viewer) render(r request) (*frame, error) {
	m := r.src.Meta()
	at := map[byte]int{'T': r.pos.t, 'C': r.pos.c, 'Z': r.pos.z}
	buf, w, h, err := loader.ReadPlane(context.Background(), r.src, 0, loader.Plane{Orientation: "xy", At: at})
	if err != nil {
		return nil, err
	}
	v.rangeMu.Lock()
	if v.rangeOf != r.src {
		v.lo, v.hi = render.AutoRange(buf, m.DType)
		v.rangeOf = r.src
	}
	lo, hi := v.lo, v.hi
	v.rangeMu.Unlock()
	gray, _ := render.ColormapNamed("gray")
	img := render.Plane(buf, m.DType, w, h, lo, hi, gray)
	label := fmt.Sprintf("%s   %s %v %s", m.Format, m.Axes, m.Shape, m.DType)
	if n := m.Size('Z'); n > 1 {
		label += fmt.Sprintf("   z %d/%d", r.pos.z+1, n)
	}
	if n := m.Size('T'); n > 1 {
		label += fmt.Sprintf("   t %d/%d", r.pos.t+1, n)
	}
	return &frame{img: img, pos: r.pos, asked: r.asked, bytes: len(buf), label: label}, nil
}

// show puts the newest frame on screen; it runs on the UI goroutine.
func (v *Viewer) show() {
	v.pending.Store(false)
	f := v.latest.Load()
	if f == nil {
		return
	}
	v.img.Image = f.img
	v.img.Refresh()
	v.status.SetText(f.label)
	if !v.shown {
		v.shown = true
		v.opts.Trace.Event("first_image", nil)
	}
	v.opts.Trace.Event("frame_shown", map[string]any{
		"t": f.pos.t, "z": f.pos.z, "c": f.pos.c, "level": 0, "complete": true,
		"latency_ms": float64(time.Since(f.asked).Microseconds()) / 1000, "bytes_read": f.bytes,
	})
}

// dropped opens the first dropped file or folder off the UI goroutine.
func (v *Viewer) dropped(uris []fyne.URI) {
	if len(uris) == 0 || v.opts.Open == nil {
		return
	}
	path := uris[0].Path()
	go func() {
		src, err := v.opts.Open(path)
		fyne.Do(func() {
			if err != nil {
				v.opts.Trace.Event("error", map[string]any{"message": err.Error()})
				dialog.ShowError(fmt.Errorf("%s: %w", filepath.Base(path), err), v.win)
				return
			}
			v.setSource(src, path)
		})
	}()
}
