package omezarr

import (
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sync/errgroup"

	"vastview/base/testtool"
	"vastview/loader"
)

// chunkedSource is an in-memory source that stores each chunk ready-made,
// so ReadChunk is one copy: the fastest a source can be.
type chunkedSource struct {
	meta   *loader.Meta
	chunks [][]byte // C order over the grid
}

func (s *chunkedSource) Meta() *loader.Meta { return s.meta }
func (s *chunkedSource) Close() error       { return nil }

func (s *chunkedSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g := s.meta.Levels[0].Grid()
	i := 0
	for k := range idx {
		i = i*g[k] + idx[k]
	}
	copy(dst, s.chunks[i])
	return nil
}

// benchSource is a 256 MiB uint16 ZYX volume in 2 MiB chunks (16x256x256):
// a smooth pattern with noise, compressible as microscopy data is.
func benchSource() *chunkedSource {
	shape, chunk := []int{128, 1024, 1024}, []int{16, 256, 256}
	m := loader.NewMeta("memory", "ZYX", shape, loader.Uint16, chunk, nil, nil)
	s := &chunkedSource{meta: m}
	seed := uint32(1)
	forEach(m.Levels[0].Grid(), func(idx []int) {
		b := make([]byte, m.Levels[0].ChunkBytes(loader.Uint16))
		i := 0
		forEach(chunk, func(p []int) {
			seed = seed*1664525 + 1013904223
			z, y, x := idx[0]*16+p[0], idx[1]*256+p[1], idx[2]*256+p[2]
			v := 100 + (z*7+y*3+x)&0x3ff + int(seed>>26)
			binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
			i++
		})
		s.chunks = append(s.chunks, b)
	})
	return s
}

// BenchmarkWrite measures Write on a 256 MiB in-memory source (MB/s of
// samples) and the compression ratio, beside a plain write of the same
// bytes to one file.
func BenchmarkWrite(b *testing.B) {
	src := benchSource()
	size := int64(len(src.chunks) * len(src.chunks[0]))
	cases := []struct {
		name string
		opts Options
	}{
		{"v2_zstd1", Options{}},
		{"v2_zstd3", Options{Level: 3}},
		{"v2_gzip1", Options{Codec: "gzip"}},
		{"v2_none", Options{Codec: "none"}},
		{"v3_zstd1", Options{Version: 3}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			b.SetBytes(size)
			b.ReportAllocs()
			stored := int64(0)
			for i := 0; i < b.N; i++ {
				out := filepath.Join(dir, fmt.Sprint(i))
				if err := Write(context.Background(), out, src, c.opts); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				stored = du(b, out)
				os.RemoveAll(out)
				b.StartTimer()
			}
			b.ReportMetric(float64(size)/float64(stored), "ratio")
		})
	}
	b.Run("plain_file", func(b *testing.B) {
		dir := b.TempDir()
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			p := filepath.Join(dir, "plain.raw")
			f, err := os.Create(p)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range src.chunks {
				if _, err := f.Write(c); err != nil {
					b.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			os.Remove(p)
			b.StartTimer()
		}
	})
}

// du is the total size of the files under dir.
func du(b *testing.B, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if st, err := e.Info(); err == nil {
				n += st.Size()
			}
		}
		return nil
	})
	return n
}

// BenchmarkWriteObjects measures Write of the 256 MiB source to a folder
// and to a local S3 gateway (versitygw, posix backend on the same disk)
// in the same run: Zarr v2 with zstd 1 (2 MiB chunks), and Zarr v3 with
// 128 MiB shards of raw chunks (each a multipart upload of two parts).
func BenchmarkWriteObjects(b *testing.B) {
	src := benchSource()
	size := int64(len(src.chunks) * len(src.chunks[0]))
	root := b.TempDir()
	addr := testtool.S3Gateway(b, root, "VVBENCHACCESS", "vvBenchSecret-2b7e", "bench")
	none := filepath.Join(b.TempDir(), "none")
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "VVBENCHACCESS", "AWS_SECRET_ACCESS_KEY": "vvBenchSecret-2b7e",
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_REGION": "", "AWS_ENDPOINT_URL": "http://" + addr,
		"AWS_ENDPOINT_URL_S3": "", "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED": "true"} {
		b.Setenv(k, v)
	}
	dir := b.TempDir()
	// The floor: the source's chunks as they are (no levels, no codec), one
	// object or file each, 8 at a time, to the same places.
	for _, to := range []string{"folder", "s3"} {
		b.Run("plain_put/"+to, func(b *testing.B) {
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				out := filepath.Join(dir, fmt.Sprint(i), "plain")
				var o output = folderOutput{out}
				if to == "s3" {
					oo, err := openObjects(fmt.Sprintf("s3://bench/plain/%d", i))
					if err != nil {
						b.Fatal(err)
					}
					o = oo
				}
				var g errgroup.Group
				g.SetLimit(8)
				for n, c := range src.chunks {
					g.Go(func() error { return o.put(context.Background(), fmt.Sprintf("c/%d", n), c) })
				}
				if err := g.Wait(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				os.RemoveAll(filepath.Join(dir, fmt.Sprint(i)))
				os.RemoveAll(filepath.Join(root, "bench", "plain"))
				b.StartTimer()
			}
		})
	}
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"v2_zstd1", Options{}},
		{"v3_shard128MiB_none", Options{Version: 3, Codec: "none", Shard: []int{128, 1024, 512}}},
	} {
		for _, to := range []string{"folder", "s3"} {
			b.Run(c.name+"/"+to, func(b *testing.B) {
				b.SetBytes(size)
				for i := 0; i < b.N; i++ {
					out := filepath.Join(dir, fmt.Sprint(i), "img.ome.zarr")
					os.MkdirAll(filepath.Dir(out), 0o755)
					if to == "s3" {
						out = fmt.Sprintf("s3://bench/%s/%d/img.ome.zarr", c.name, i)
					}
					if err := Write(context.Background(), out, src, c.opts); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					os.RemoveAll(filepath.Join(dir, fmt.Sprint(i)))
					os.RemoveAll(filepath.Join(root, "bench", c.name))
					b.StartTimer()
				}
			})
		}
	}
}
