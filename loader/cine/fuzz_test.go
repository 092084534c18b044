package cine

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vastview/loader"
)

// FuzzOpen opens arbitrary bytes as a cine and reads every frame: no
// panic, no hang, and a Source that opens describes a valid array. Seed:
// the Phantom cine cut to its first two frames.
func FuzzOpen(f *testing.F) {
	b, err := os.ReadFile(filepath.Join(shared, "cine_legacy.cine"))
	if err != nil {
		f.Fatal(err)
	}
	le := binary.LittleEndian
	offs := int(le.Uint32(b[offOffsets:]))
	second := int(le.Uint64(b[offs+8:]))
	seed := append([]byte(nil), b[:second+8+128*128*2]...)
	le.PutUint32(seed[offImageCount:], 2)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 128<<10 {
			return
		}
		path := filepath.Join(t.TempDir(), "f.cine")
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
