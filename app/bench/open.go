package bench

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"vastview/loader"
	"vastview/loader/tiff/tiffwrite"
)

// openFixture is a generated file for the open benchmark.
type openFixture struct {
	name  string // figure name and file stem
	path  string
	pages int  // planes along axis
	axis  byte // 'Z' when 0; 'T' for movies
	make  func(path string) error
}

func tiffFixture(dir string, w, h, pages int, dt loader.DType) openFixture {
	name := fmt.Sprintf("tiff_%dx%dx%d_%s", w, h, pages, dt)
	return openFixture{name: name, path: filepath.Join(dir, name+".tif"), pages: pages,
		make: func(path string) error {
			return tiffwrite.Stack(path, w, h, pages, dt, fillNoisy)
		}}
}

func pngFixture(dir string, w, h, frames int) openFixture {
	name := fmt.Sprintf("png_%dx%dx%d", w, h, frames)
	return openFixture{name: name, path: filepath.Join(dir, name), pages: frames,
		make: func(path string) error {
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
			img := image.NewGray(image.Rect(0, 0, w, h))
			enc := png.Encoder{CompressionLevel: png.BestSpeed}
			for k := 0; k < frames; k++ {
				for i := range img.Pix {
					img.Pix[i] = byte(i + k)
				}
				f, err := os.Create(filepath.Join(path, fmt.Sprintf("frame%d.png", k)))
				if err != nil {
					return err
				}
				err = enc.Encode(f, img)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
			}
			return nil
		}}
}

// ensure generates the fixture unless a finished one is there; a fixture is
// finished when its ".done" marker exists.
func (f *openFixture) ensure(env *benchEnv) error {
	done := f.path + ".done"
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	env.progress("generating %s (once; kept in %s)", f.name, env.dir)
	os.RemoveAll(f.path)
	if err := f.make(f.path); err != nil {
		return err
	}
	return os.WriteFile(done, nil, 0o644)
}

// benchOpen measures the time from Open to a plane in memory, for the first
// and the last plane, on files that differ tenfold in size, next to a plain
// read of the same bytes.
func benchOpen(ctx context.Context, env *benchEnv) error {
	fixtures := []openFixture{
		tiffFixture(env.dir, 2048, 2048, 50, loader.Uint16),
		tiffFixture(env.dir, 2048, 2048, 500, loader.Uint16),
		tiffFixture(env.dir, 256, 256, 10000, loader.Uint8),
		tiffFixture(env.dir, 256, 256, 100000, loader.Uint8),
		pngFixture(env.dir, 256, 256, 1000),
		pngFixture(env.dir, 256, 256, 10000),
	}
	for i := range fixtures {
		if err := fixtures[i].ensure(env); err != nil {
			return err
		}
	}
	big := fixtures[1]
	plain, err := env.median(func() error { return plainRead(big.path, 2048*2048*2) })
	if err != nil {
		return err
	}
	env.report("open.plain_read_one_2048x2048_uint16_plane", plain, "ms")
	return env.openFigures(ctx, fixtures)
}

// openFigures reports the median time from Open to the first and to the
// last plane in memory for each fixture.
func (env *benchEnv) openFigures(ctx context.Context, fixtures []openFixture) error {
	for _, f := range fixtures {
		for _, z := range []int{0, f.pages - 1} {
			ms, err := env.median(func() error { return openAndRead(ctx, f.path, f.axis, z) })
			if err != nil {
				return err
			}
			which := "first_plane"
			if z > 0 {
				which = "last_plane"
			}
			env.report("open."+f.name+"."+which, ms, "ms")
		}
	}
	return nil
}

// openAndRead opens path and reads plane i along axis ('Z' when 0).
func openAndRead(ctx context.Context, path string, axis byte, i int) error {
	src, err := loader.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer src.Close()
	if axis == 0 {
		axis = 'Z'
	}
	_, _, _, err = loader.ReadPlane(ctx, src, 0, loader.Plane{Orientation: loader.XY, At: map[byte]int{axis: i}})
	return err
}

// plainRead opens the file and reads n bytes from its middle: the yardstick.
func plainRead(path string, n int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	buf := make([]byte, n)
	_, err = f.ReadAt(buf, st.Size()/2)
	return err
}

// fillNoisy fills a page with a slow ramp plus six bits of noise: about as
// compressible as a microscope image.
func fillNoisy(page int, buf []byte) {
	x := uint64(page)*0x9E3779B97F4A7C15 + 1
	for i := range buf {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf[i] = byte(x&0x3f) + byte(i>>14+page)
	}
}
