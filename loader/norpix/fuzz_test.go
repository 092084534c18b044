package norpix

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vastview/loader"
)

// FuzzOpen opens arbitrary bytes as a sequence and reads every frame: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// StreamPix's own sequence and a version 4 one.
func FuzzOpen(f *testing.F) {
	b, err := os.ReadFile(filepath.Join(shared, "sample_norpix6.seq"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(seq(4, 6, 4, 3, 5, 0.01))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64<<10 {
			return
		}
		path := filepath.Join(t.TempDir(), "f.seq")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		Match(path, b)
		src, err := Open(context.Background(), path)
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
	})
}
