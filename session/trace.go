package session

import (
	"encoding/json"
	"io"
	"os"
	"sync"
	"time"

	"vastview/loader"
)

// Tracer writes one JSON object per line, each with "event" and "ms"
// (milliseconds since the process started). A nil *Tracer writes nothing.
// It is safe for concurrent use.
type Tracer struct {
	mu    sync.Mutex
	c     io.Closer
	enc   *json.Encoder
	start time.Time
}

// NewTracer creates (truncates) the trace file at path; start is the
// process start time the "ms" field counts from.
func NewTracer(path string, start time.Time) (*Tracer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	t := NewTracerTo(f, start)
	t.c = f
	return t, nil
}

// NewTracerTo writes the events to w.
func NewTracerTo(w io.Writer, start time.Time) *Tracer {
	return &Tracer{enc: json.NewEncoder(w), start: start}
}

// Event writes one event with the given extra fields; credentials and
// signatures in the addresses of string fields are left out
// (loader.Redact).
func (t *Tracer) Event(event string, fields map[string]any) {
	if t == nil {
		return
	}
	rec := map[string]any{"event": event, "ms": float64(time.Since(t.start).Microseconds()) / 1000}
	for k, v := range fields {
		if s, ok := v.(string); ok {
			v = loader.Redact(s)
		}
		rec[k] = v
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.enc.Encode(rec)
}

// Close closes the trace file.
func (t *Tracer) Close() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.c == nil {
		return nil
	}
	return t.c.Close()
}
