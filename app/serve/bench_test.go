package serve_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"vastview/app/serve"
	"vastview/levels"
	"vastview/loader"
	"vastview/loader/tiff/tiffwrite"
)

// benchStack writes a stack of 32 pages of 1024x1024 uint16 (64 MiB) of
// noisy samples once per benchmark run.
func benchStack(b *testing.B) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), "bench.tif")
	err := tiffwrite.Stack(p, 1024, 1024, 32, loader.Uint16, func(page int, buf []byte) {
		x := uint32(page*2654435761 + 1)
		for i := range buf {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			buf[i] = byte(x >> 5 & 0x3f)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkServeChunks fetches every level-0 chunk (one 2 MiB page each)
// of the stack over loopback HTTP, four clients at a time; its bytes per
// second compare with BenchmarkFileRead's of the same pages.
func BenchmarkServeChunks(b *testing.B) {
	p := benchStack(b)
	for _, codec := range []string{"none", "zstd"} {
		b.Run(codec, func(b *testing.B) {
			src, err := loader.Open(context.Background(), p)
			if err != nil {
				b.Fatal(err)
			}
			pyr, err := levels.Open(src, levels.Options{CacheBytes: 64 << 20})
			if err != nil {
				b.Fatal(err)
			}
			defer pyr.Close()
			url, _ := serveImages(b, []serve.Image{{Name: "bench", Src: pyr}}, serve.Options{Codec: codec})
			b.SetBytes(32 << 21)
			var wire atomic.Int64
			b.ResetTimer()
			for range b.N {
				next := atomic.Int64{}
				errc := make(chan error, 4)
				for range 4 {
					go func() {
						for {
							z := next.Add(1) - 1
							if z >= 32 {
								errc <- nil
								return
							}
							resp, err := http.Get(fmt.Sprintf("%s/bench.ome.zarr/0/%d/0/0", url, z))
							if err != nil {
								errc <- err
								return
							}
							n, err := io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							if err != nil || resp.StatusCode != 200 {
								errc <- fmt.Errorf("chunk %d: %v %d", z, err, resp.StatusCode)
								return
							}
							wire.Add(n)
						}
					}()
				}
				for range 4 {
					if err := <-errc; err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(wire.Load())/float64(b.N)/float64(32<<21), "wire/raw")
		})
	}
}

// BenchmarkFileRead reads the same pages' bytes straight from the file,
// four readers at a time (os.File.ReadAt): the floor of serving them.
func BenchmarkFileRead(b *testing.B) {
	p := benchStack(b)
	f, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b.SetBytes(32 << 21)
	b.ResetTimer()
	for range b.N {
		next := atomic.Int64{}
		done := make(chan struct{}, 4)
		for range 4 {
			go func() {
				buf := make([]byte, 2<<20)
				for {
					z := next.Add(1) - 1
					if z >= 32 {
						done <- struct{}{}
						return
					}
					// Pages follow a header; reading 2 MiB at their
					// spacing from the end reads the same volume of data.
					off := st.Size() - (32-z)*(2<<20)
					if _, err := f.ReadAt(buf, off); err != nil {
						b.Error(err)
					}
				}
			}()
		}
		for range 4 {
			<-done
		}
	}
}
