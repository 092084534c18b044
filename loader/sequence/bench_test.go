package sequence

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// benchDirs holds folders of generated frames by frame count; they live
// until TestMain removes benchRoot.
var (
	benchMu   sync.Mutex
	benchRoot string
	benchDirs = map[int]string{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
	os.Exit(code)
}

// benchFolder returns a folder of n 256x256 gray PNG frames, made once.
func benchFolder(b *testing.B, n int) string {
	benchMu.Lock()
	defer benchMu.Unlock()
	if d, ok := benchDirs[n]; ok {
		return d
	}
	if benchRoot == "" {
		r, err := os.MkdirTemp("", "sequence-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchRoot = r
	}
	img := image.NewGray(image.Rect(0, 0, 256, 256))
	for i := range img.Pix {
		img.Pix[i] = uint8(i*7 + i/256)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(benchRoot, fmt.Sprint(n))
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("frame%d.png", i)), buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	benchDirs[n] = dir
	return dir
}

// BenchmarkOpenFirstFrame measures opening a folder and reading its first
// frame: the time to the first image.
func BenchmarkOpenFirstFrame(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := benchFolder(b, n)
			dst := make([]byte, 256*256)
			b.ReportAllocs()
			for b.Loop() {
				s, err := Open(context.Background(), dir)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.ReadChunk(context.Background(), 0, []int{0, 0, 0}, dst); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
}

// BenchmarkCheck measures reading every frame's header.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, err := Open(context.Background(), benchFolder(b, n))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Check(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadFrame measures decoding one 256x256 PNG frame.
func BenchmarkReadFrame(b *testing.B) {
	s, err := Open(context.Background(), benchFolder(b, 1000))
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, 256*256)
	b.SetBytes(int64(len(dst)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := s.ReadChunk(context.Background(), 0, []int{i % 1000, 0, 0}, dst); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
