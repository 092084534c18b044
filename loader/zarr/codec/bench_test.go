package codec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"vastview/internal/testtool"
)

var (
	benchOnce sync.Once
	benchImg  []byte
	benchEnc  []benchCase
	benchErr  error
)

// loadBench encodes the benchmark image once per run.
func loadBench(b *testing.B) ([]byte, []benchCase) {
	b.Helper()
	testtool.RequirePython(b, "numcodecs", "numpy")
	benchOnce.Do(func() {
		benchImg = benchImage()
		benchEnc, benchErr = benchCases(benchImg)
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

// BenchmarkUnshuffle undoes the byte and bit shuffles of a 256 KiB block,
// beside copy() of the same bytes.
func BenchmarkUnshuffle(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]byte, 256<<10)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	dst := make([]byte, len(src))
	tmp := make([]byte, len(src))
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			copy(dst, src)
		}
	})
	for _, ts := range []int{2, 3, 4, 8} {
		src := src[:len(src)/(8*ts)*(8*ts)] // whole groups of 8 elements
		dst, tmp := dst[:len(src)], tmp[:len(src)]
		b.Run(fmt.Sprintf("byte/ts=%d", ts), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				unshuffle(dst, src, ts)
			}
		})
		b.Run(fmt.Sprintf("bit/ts=%d", ts), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				bitUnshuffle(dst, src, tmp, ts)
			}
		})
	}
}

// BenchmarkRunBench prints the figures of RunBench once:
// go test -v -run '^$' -bench RunBench -benchtime 1x ./loader/zarr/codec
func BenchmarkRunBench(b *testing.B) {
	testtool.RequirePython(b, "numcodecs", "numpy")
	for b.Loop() {
		err := RunBench(func(name string, value float64, unit string) {
			b.Logf("%s %.4g %s", name, value, unit)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// TestRunBenchNoPython checks that the bench command explains a missing
// interpreter in one line.
func TestRunBenchNoPython(t *testing.T) {
	saved := benchPython
	benchPython = filepath.Join(t.TempDir(), "python3")
	defer func() { benchPython = saved }()
	err := RunBench(func(string, float64, string) { t.Error("reported a figure without Blosc input") })
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "needs "+benchPython+" with numcodecs") {
		t.Errorf("RunBench without python: %v", err)
	}
}
