package hdf5

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/loader"
)

// TestCut opens h5py's files and the real Imaris file cut at many lengths
// and reads what opens: never a panic, and every error one line.
func TestCut(t *testing.T) {
	edir, _ := fixtures(t, "core")
	ldir, _ := fixtures(t, "latest")
	files := []string{filepath.Join(edir, "earliest.h5"), filepath.Join(ldir, "layouts.h5"), realIMS}
	tmp := filepath.Join(t.TempDir(), "cut.h5")
	ctx := context.Background()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for i := 1; i < 48; i++ {
			n := len(b) * i / 48
			if err := os.WriteFile(tmp, b[:n], 0o644); err != nil {
				t.Fatal(err)
			}
			src, err := loader.Open(ctx, tmp)
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("%s cut at %d: %q", filepath.Base(f), n, err)
				}
				continue
			}
			if _, err := loader.ReadAll(ctx, src, 0, 1<<28); err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("%s cut at %d: %q", filepath.Base(f), n, err)
			}
			src.Close()
		}
	}
}
