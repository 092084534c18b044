package bench

import (
	"bytes"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"vastview/base/testtool"
)

var (
	benchOnce sync.Once
	benchImg  []byte
	benchEnc  []codecCase
	benchErr  error
)

// loadBench encodes the benchmark image once per run.
func loadBench(b *testing.B) ([]byte, []codecCase) {
	b.Helper()
	testtool.RequirePython(b, "numcodecs", "numpy")
	benchOnce.Do(func() {
		benchImg = benchImage()
		benchEnc, benchErr = codecCases(benchImg)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchImg, benchEnc
}

// BenchmarkDecode decodes the 16 MiB image with each codec into a reused
// buffer, beside copy() of the same bytes.
func BenchmarkDecode(b *testing.B) {
	img, cases := loadBench(b)
	dst := make([]byte, len(img))
	copy(dst, img) // fault the pages in before timing
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(len(img)))
		b.ReportAllocs()
		for b.Loop() {
			copy(dst, img)
		}
	})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			out, err := c.codec.Decode(dst, c.enc, len(img))
			if err != nil || !bytes.Equal(out, img) {
				b.Fatalf("decode: %v", err)
			}
			b.SetBytes(int64(len(img)))
			b.ReportAllocs()
			for b.Loop() {
				c.codec.Decode(dst, c.enc, len(img))
			}
		})
	}
}

// TestRunBenchNoPython checks that the bench command explains a missing
// interpreter in one line.
func TestRunBenchNoPython(t *testing.T) {
	saved := benchPython
	benchPython = filepath.Join(t.TempDir(), "python3")
	defer func() { benchPython = saved }()
	err := benchCodec(func(string, float64, string) { t.Error("reported a figure without Blosc input") })
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "needs "+benchPython+" with numcodecs") {
		t.Errorf("RunBench without python: %v", err)
	}
}
