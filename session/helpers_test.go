package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"vastview/loader"
	"vastview/loader/demo"
	"vastview/prefs"
)

// harness drives a session as a window would: it takes every frame and
// update the session offers, on its own goroutine, and lets a test wait
// for them.
type harness struct {
	t      *testing.T
	s      *Session
	frames chan *Frame
	update chan Update
	trace  *syncBuffer
	clock  *ManualClock // nil: the real clock
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// events returns the trace events written so far.
func (b *syncBuffer) events() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.b.Bytes()))
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// newHarness starts a session with a 400×300 viewport; opts' callbacks,
// Trace, and (unless set) Prefs are the harness's.
func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	h := &harness{t: t, frames: make(chan *Frame, 1024), update: make(chan Update, 1024), trace: &syncBuffer{}}
	if c, ok := opts.Clock.(*ManualClock); ok {
		h.clock = c
	}
	frameReady, updateReady := make(chan struct{}, 1), make(chan struct{}, 1)
	opts.OnFrame = func() { signal(frameReady) }
	opts.OnUpdate = func() { signal(updateReady) }
	opts.Trace = NewTracerTo(h.trace, time.Now())
	if opts.Prefs == nil {
		opts.Prefs = prefs.New(&prefs.MapStore{})
	}
	if opts.DiskRoot == "" {
		opts.DiskRoot = t.TempDir()
	}
	h.s = New(opts)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // the window's goroutine
		for {
			select {
			case <-stop:
				return
			case <-frameReady:
				if f := h.s.TakeFrame(); f != nil {
					h.frames <- f
				}
			case <-updateReady:
				h.update <- h.s.TakeUpdate()
			}
		}
	})
	t.Cleanup(func() {
		h.s.Close()
		close(stop)
		wg.Wait()
	})
	h.s.SetScaleBar(false) // tests compare pictures with the data's samples
	h.s.Resize(400, 300)
	return h
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// open shows src as name and waits for its first complete frame.
func (h *harness) open(src loader.Source, name string) *Frame {
	h.t.Helper()
	if err := h.s.OpenSource(src, name); err != nil {
		h.t.Fatal(err)
	}
	return h.waitFrame(func(f *Frame) bool { return f.Info.Complete })
}

// waitFrame waits for a frame for which ok holds (failing after a minute
// without one).
func (h *harness) waitFrame(ok func(*Frame) bool) *Frame {
	h.t.Helper()
	deadline := time.After(time.Minute)
	var last *Frame
	for {
		select {
		case f := <-h.frames:
			if ok(f) {
				return f
			}
			last = f
		case <-deadline:
			if last != nil {
				h.t.Fatalf("no such frame; the last was %+v %+v", last.View, last.Info)
			}
			h.t.Fatal("no such frame, and none at all")
		}
	}
}

// waitUpdate waits for an update for which ok holds.
func (h *harness) waitUpdate(ok func(Update) bool) Update {
	h.t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case u := <-h.update:
			if ok(u) {
				return u
			}
		case <-deadline:
			h.t.Fatal("no such update")
		}
	}
}

// small is a 2×9×64×96 demo volume, as if stored in a file.
func small() loader.Source { return stored{demo.NewSized(2, 9, 64, 96)} }

// stored is a demo volume that says it is stored, as a file's data.
type stored struct{ *demo.Source }

func (s stored) Meta() *loader.Meta {
	m := *s.Source.Meta()
	m.Synthetic = false
	return &m
}

// eventsNamed returns the trace events called name.
func (h *harness) eventsNamed(name string) []map[string]any {
	var out []map[string]any
	for _, e := range h.trace.events() {
		if e["event"] == name {
			out = append(out, e)
		}
	}
	return out
}
