package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"vastview/loader"
	"vastview/loader/zarr/store"
)

// tolerant counts chunks a store does not hold instead of failing on them,
// so that loader.ReadAll assembles a level with fill values.
type tolerant struct {
	loader.Source
	missing atomic.Int64
}

func (s *tolerant) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	err := s.Source.ReadChunk(ctx, level, idx, dst)
	if loader.IsNotStored(err) {
		s.missing.Add(1)
		return nil
	}
	return err
}

// readLevel assembles a whole level; missing is the number of chunks that
// read as the fill value.
func readLevel(t testing.TB, src loader.Source, level int) (data []byte, missing int) {
	t.Helper()
	ts := &tolerant{Source: src}
	b, err := loader.ReadAll(context.Background(), ts, level, 1<<28)
	if err != nil {
		t.Fatalf("level %d: %v", level, err)
	}
	return b, int(ts.missing.Load())
}

// sameSamples compares two little-endian arrays of dtype dt and reports
// the first difference by position.
func sameSamples(t testing.TB, what string, got, want []byte, dt loader.DType, shape []int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(got), len(want))
	}
	if bytes.Equal(got, want) {
		return
	}
	es := dt.Size()
	for i := 0; i < len(got); i += es {
		if !bytes.Equal(got[i:i+es], want[i:i+es]) {
			t.Fatalf("%s: sample %v is %v, want %v", what, position(i/es, shape), sample(got[i:], dt), sample(want[i:], dt))
		}
	}
}

// position turns a flat C-order index into per-axis positions.
func position(i int, shape []int) []int {
	p := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		p[k] = i % shape[k]
		i /= shape[k]
	}
	return p
}

// sample formats one little-endian sample.
func sample(b []byte, dt loader.DType) string {
	switch dt {
	case loader.Uint8:
		return fmt.Sprint(b[0])
	case loader.Int8:
		return fmt.Sprint(int8(b[0]))
	case loader.Uint16:
		return fmt.Sprint(binary.LittleEndian.Uint16(b))
	case loader.Int16:
		return fmt.Sprint(int16(binary.LittleEndian.Uint16(b)))
	case loader.Uint32:
		return fmt.Sprint(binary.LittleEndian.Uint32(b))
	case loader.Int32:
		return fmt.Sprint(int32(binary.LittleEndian.Uint32(b)))
	case loader.Float32:
		return fmt.Sprint(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case loader.Float64:
		return fmt.Sprint(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	return "?"
}

// fileServer serves dir over loopback HTTP for the test's duration.
func fileServer(t testing.TB, dir string) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// memStore is an in-memory Store; it counts reads.
type memStore struct {
	mu     sync.Mutex
	files  map[string][]byte
	shared bool // Get returns the stored slice itself (for benchmarks)
	gets   atomic.Int64
	ranges atomic.Int64
}

func newMemStore(files map[string][]byte) *memStore {
	return &memStore{files: files}
}

func (m *memStore) value(key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[key]
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, store.ErrNotFound)
	}
	return b, nil
}

func (m *memStore) put(key string, b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[key] = b
}

func (m *memStore) Get(ctx context.Context, key string) ([]byte, error) {
	m.gets.Add(1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := m.value(key)
	if m.shared {
		return b, err
	}
	return slices.Clone(b), err
}

func (m *memStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	m.ranges.Add(1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := m.value(key)
	if err != nil {
		return nil, err
	}
	size := int64(len(b))
	if off < 0 {
		off, n = size+off, -off
	}
	if off < 0 || n < 0 || off > size || n > size-off {
		return nil, fmt.Errorf("%s: %w", key, store.ErrOutOfRange)
	}
	return slices.Clone(b[off : off+n]), nil
}

func (m *memStore) String() string { return "memory" }
func (m *memStore) Close() error   { return nil }

// wantError checks that err is one line and contains every part.
func wantError(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error spans lines: %q", msg)
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("error %q does not contain %q", msg, p)
		}
	}
}

// isFormat reports whether err is a zarr FormatError.
func isFormat(err error) bool {
	var fe *loader.FormatError
	return errors.As(err, &fe) && fe.Format == "zarr"
}

// isUnsupported reports whether err is a zarr UnsupportedError.
func isUnsupported(err error) bool {
	var ue *loader.UnsupportedError
	return errors.As(err, &ue) && ue.Format == "zarr"
}
