package nrrd

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vastview/loader"
)

// FuzzOpen opens arbitrary bytes as a file and reads every plane: no panic,
// no hang, and a Source that opens describes a valid array.
func FuzzOpen(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.nrrd"))
	if len(seeds) == 0 {
		f.Fatal("no seed files in testdata")
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 16<<10 {
			return
		}
		path := filepath.Join(t.TempDir(), "f.nrrd")
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
