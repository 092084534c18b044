package tiff

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/tiff/tiffwrite"
)

// Uniform stacks from the common writers are indexed by arithmetic; the
// others by walking the chain. Either way every page reads as tifffile
// reads it.
func TestIndexModes(t *testing.T) {
	testtool.Require(t, "convert")
	dir := t.TempDir()
	python(t, dir, `
rng = np.random.default_rng(4)
# Pages compress to different sizes.
a = np.stack([rng.integers(0, 1 + 4 * k, (12, 10), dtype=np.uint8) for k in range(57)])
mb = dict(photometric='minisblack')
tifffile.imwrite(d + '/tf.tif', a, **mb)
tifffile.imwrite(d + '/tf_pages.tif', a, contiguous=False, **mb)
tifffile.imwrite(d + '/tf_big.tif', a, bigtiff=True, **mb)
tifffile.imwrite(d + '/tf_be.tif', a, byteorder='>', **mb)
tifffile.imwrite(d + '/tf_ij.tif', a, imagej=True, metadata={'axes': 'ZYX'})
tifffile.imwrite(d + '/tf_ome.tif', a, ome=True, metadata={'axes': 'ZYX'})
tifffile.imwrite(d + '/tf_zlib.tif', a, compression='zlib', **mb)
tifffile.imwrite(d + '/tf_ome_zlib.tif', a, ome=True, compression='zlib', metadata={'axes': 'TYX'})
# Uniform but for one page in the middle, whose IFD has an extra tag.
with tifffile.TiffWriter(d + '/tf_kink.tif') as tw:
    for k in range(57):
        tw.write(a[k], contiguous=False, software='x' * (40 if k == 29 else 0) or None, **mb)
a.tofile(d + '/a.raw')
open(d + '/trailing.tif', 'wb').write(open(d + '/tf.tif', 'rb').read() + b'\0' * 333)
`)
	raw := readFile(t, filepath.Join(dir, "a.raw"))
	testtool.Run(t, "convert", "-size", "10x12", "-depth", "8", "gray:"+filepath.Join(dir, "a.raw"), filepath.Join(dir, "im.tif"))
	testtool.Run(t, "convert", "-size", "10x12", "-depth", "8", "gray:"+filepath.Join(dir, "a.raw"), "-compress", "Zip", filepath.Join(dir, "im_zip.tif"))
	if err := tiffwrite.Stack(filepath.Join(dir, "ws.tif"), 10, 12, 57, loader.Uint8, func(k int, b []byte) {
		copy(b, raw[k*120:])
	}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		file, axes string
		mode       int
	}{
		{"ws.tif", "ZYX", modeStride},
		{"tf.tif", "ZYX", modeStride},
		{"tf_pages.tif", "ZYX", modeStride},
		{"tf_big.tif", "ZYX", modeStride},
		{"tf_be.tif", "ZYX", modeStride},
		{"tf_ij.tif", "ZYX", modeStride},
		{"tf_ome.tif", "ZYX", modeStride},
		{"trailing.tif", "ZYX", modeStride},
		{"im.tif", "ZYX", modeStride},
		{"im_zip.tif", "ZYX", modeList},
		{"tf_zlib.tif", "ZYX", modeList},
		{"tf_ome_zlib.tif", "TYX", modeList},
		{"tf_kink.tif", "ZYX", modeList},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			src := openTIFF(t, filepath.Join(dir, c.file))
			if m := src.(*source).idx.mode; m != c.mode {
				t.Errorf("indexed in mode %d, want %d", m, c.mode)
			}
			m := src.Meta()
			if m.Axes != c.axes || m.Shape[0] != 57 {
				t.Fatalf("meta %s %v, want %s with 57 pages", m.Axes, m.Shape, c.axes)
			}
			if got := readAll(t, src); string(got) != string(raw) {
				t.Fatalf("samples differ at byte %d", firstDiff(got, raw))
			}
		})
	}
}

// A page request waits for the background index only as long as it must,
// gives up with its context, and Close ends the wait.
func TestLocateWaits(t *testing.T) {
	x := &pageIndex{mode: modeList, n: 10, progress: make(chan struct{}), stop: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := x.locate(ctx, 3); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("locate with an expired context: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		off, _, err := x.locate(context.Background(), 1)
		if err == nil && off != 200 {
			err = errors.New("wrong offset")
		}
		got <- err
	}()
	x.publish([]int64{100, 200}, false, nil)
	if err := <-got; err != nil {
		t.Fatalf("locate after publish: %v", err)
	}
	go func() {
		_, _, err := x.locate(context.Background(), 5)
		got <- err
	}()
	x.close()
	if err := <-got; err != errClosed {
		t.Fatalf("locate across close: %v", err)
	}
	y := &pageIndex{mode: modeList, progress: make(chan struct{}), stop: make(chan struct{})}
	y.publish([]int64{100}, true, nil)
	_, _, err := y.locate(context.Background(), 4)
	expectFormatErr(t, err, "page 4 is missing: the file holds 1 pages")
}

// Concurrent reads of a stack indexed in the background, and Close while
// they run, neither race nor leak.
func TestConcurrentReads(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, `
rng = np.random.default_rng(6)
a = np.stack([rng.integers(0, 1 + 200 * k, (16, 12), dtype=np.uint16) for k in range(300)])
tifffile.imwrite(d + '/s.tif', a, imagej=True, compression='zlib')
a.tofile(d + '/a.raw')
`)
	raw := readFile(t, filepath.Join(dir, "a.raw"))
	for round := 0; round < 3; round++ {
		src, err := loader.Open(context.Background(), filepath.Join(dir, "s.tif"))
		if err != nil {
			t.Fatal(err)
		}
		if src.(*source).idx.mode != modeList {
			t.Fatalf("compressed ImageJ stack not indexed in the background")
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				buf := make([]byte, 16*12*2)
				for k := 299 - g; k >= 0; k -= 8 {
					if err := src.ReadChunk(context.Background(), 0, []int{k, 0, 0}, buf); err != nil {
						if round == 2 && errors.Is(err, errClosed) {
							return
						}
						errs <- err
						return
					}
					if string(buf) != string(raw[k*384:(k+1)*384]) {
						errs <- errors.New("page differs")
						return
					}
				}
			}(g)
		}
		if round == 2 {
			src.Close()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		src.Close()
	}
}

func TestWriteStackBigTIFF(t *testing.T) {
	testtool.Long(t, "writes a sparse 4 GiB file")
	p := filepath.Join(t.TempDir(), "big.tif")
	// 2 pages of 32768x32768 uint16 = 4 GiB: BigTIFF, only the last rows
	// of the last page written.
	if err := tiffwrite.Stack(p, 32768, 32768, 2, loader.Uint16, nil); err != nil {
		t.Fatal(err)
	}
	head := readHead(t, p, 4)
	if string(head) != "II+\x00" {
		t.Fatalf("header %q, want BigTIFF", head)
	}
	src := openTIFF(t, p)
	m := src.Meta()
	if m.Axes != "ZYX" || m.Shape[0] != 2 || m.Shape[1] != 32768 || m.Levels[0].Chunk[1] != 256 {
		t.Fatalf("meta %s %v chunk %v, want ZYX [2 32768 32768] in bands of 256 rows", m.Axes, m.Shape, m.Levels[0].Chunk)
	}
	buf := make([]byte, m.Levels[0].ChunkBytes(m.DType))
	if err := src.ReadChunk(context.Background(), 0, []int{1, 127, 0}, buf); err != nil {
		t.Fatal(err)
	}
	js := testtool.RunPython(t, "import sys, tifffile\nt = tifffile.TiffFile(sys.argv[1])\nprint(len(t.pages), t.pages[1].shape, t.pages[1].dtype, t.is_bigtiff)", p)
	if string(js) != "2 (32768, 32768) uint16 True\n" {
		t.Fatalf("tifffile reads %q", js)
	}
}

func readHead(t *testing.T, path string, n int) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, n)
	if _, err := f.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return b
}
