// Package loadertest holds what the readers' tests share: the body of
// their FuzzOpen targets and reading a frame. It is for tests only.
package loadertest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vastview/loader"
)

// FuzzFile writes b (inputs over maxBytes are skipped) to a file called name
// and opens it with match and open: no panic, no hang, and a Source that
// opens describes a valid array whose chunks all read within 20 seconds.
func FuzzFile(t *testing.T, b []byte, name string, maxBytes int,
	match func(path string, head []byte) bool, open func(ctx context.Context, path string) (loader.Source, error)) {
	if len(b) > maxBytes {
		return
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	match(path, b)
	src, err := open(context.Background(), path)
	if err != nil {
		return
	}
	defer src.Close()
	if err := src.Meta().Validate(); err != nil {
		t.Fatalf("opened an invalid array: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = loader.ReadAll(ctx, src, 0, 1<<24)
	if ctx.Err() != nil {
		t.Fatalf("reading hangs: %v", err)
	}
}

// Frame reads frame i (the position along T) of src's XY plane, failing
// t on error.
func Frame(t *testing.T, src loader.Source, i int) []byte {
	t.Helper()
	buf, _, _, err := loader.ReadPlane(context.Background(), src, 0, loader.Plane{Orientation: "xy", At: map[byte]int{'T': i}})
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// OpenFirstPlane is the body of the readers' open benchmarks: each
// iteration opens path with open, reads the first XY plane of level 0 and
// closes the source.
func OpenFirstPlane(b *testing.B, path string, open func(ctx context.Context, path string) (loader.Source, error)) {
	b.Helper()
	ctx := context.Background()
	for b.Loop() {
		src, err := open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, _, err := loader.ReadPlane(ctx, src, 0, loader.Plane{Orientation: "xy"}); err != nil {
			b.Fatal(err)
		}
		src.Close()
	}
}
