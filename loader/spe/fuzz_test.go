package spe

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vastview/loader"
)

// FuzzOpen opens arbitrary bytes as an SPE file and reads every frame: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// WinSpec's stack cut to one frame, and an SPE 3.0 file with a footer.
func FuzzOpen(f *testing.F) {
	b, err := os.ReadFile(filepath.Join(shared, "spestack_test.spe"))
	if err != nil {
		f.Fatal(err)
	}
	one := append([]byte(nil), b[:headerSize+128*128*2]...)
	binary.LittleEndian.PutUint32(one[offFrames:], 1)
	f.Add(one)
	lf, _ := spe3(3, 8, 5, 0.5)
	f.Add(lf)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64<<10 {
			return
		}
		path := filepath.Join(t.TempDir(), "f.spe")
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
