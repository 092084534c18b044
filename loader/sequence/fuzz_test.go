package sequence

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzFrame decodes one PNG or JPEG frame from arbitrary bytes: it must
// return an error or fill the buffer, never panic.
func FuzzFrame(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*.*g")
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds in testdata: %v", err)
	}
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		info, err := parseHeader(data)
		if err != nil {
			return
		}
		if info.w <= 0 || info.h <= 0 || info.c <= 0 || info.dtype.Size() == 0 {
			t.Fatalf("header accepted with %+v", info)
		}
		if info.bytes() > 1<<20 {
			return
		}
		dst := make([]byte, info.bytes())
		if err := decodeFrame(data, &info, dst); err != nil {
			return
		}
		// A frame of another shape is refused.
		other := info
		other.w++
		if err := decodeFrame(data, &other, make([]byte, other.bytes())); err == nil {
			t.Fatal("frame decoded against a header of another width")
		}
	})
}

// TestSeedsDecode checks that every fuzz seed is a frame that decodes.
func TestSeedsDecode(t *testing.T) {
	seeds, _ := filepath.Glob("testdata/*.*g")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		info, err := parseHeader(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := decodeFrame(b, &info, make([]byte, info.bytes())); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
}
