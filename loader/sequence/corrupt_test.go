package sequence

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"vastview/loader"
)

// magickPictures writes one small picture per format and kind ImageMagick
// makes, and returns their paths.
func magickPictures(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	plasma := []string{"-size", "40x30", "-seed", "6", "plasma:"}
	files := map[string][]string{
		"rgb.png":         {"PNG24:"},
		"palette.png":     {"-colors", "30", "PNG8:"},
		"gray16.png":      {"-colorspace", "Gray", "-depth", "16", "PNG:"},
		"photo.jpg":       {"-quality", "90", "JPEG:"},
		"progressive.jpg": {"-interlace", "JPEG", "JPEG:"},
		"rgb.bmp":         {"BMP3:"},
		"palette.bmp":     {"-colors", "30", "-type", "Palette", "-compress", "None", "BMP3:"},
		"still.gif":       {"-colors", "30", "GIF:"},
	}
	var paths []string
	for name, args := range files {
		p := filepath.Join(dir, name)
		last := len(args) - 1
		convert(t, append(append(plasma, args[:last]...), args[last]+p)...)
		paths = append(paths, p)
	}
	anim := filepath.Join(dir, "anim.gif")
	var args []string
	for _, f := range gifFrames {
		args = append(append(args, "-dispose", "Background"), f...)
	}
	convert(t, append(args, "GIF:"+anim)...)
	return append(paths, anim)
}

// openAndRead opens path and reads all of it, returning the first error.
func openAndRead(path string) error {
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = loader.ReadAll(context.Background(), src, 0, 1<<30)
	return err
}

// TestTruncatedPictures cuts pictures of every format short at several
// lengths: each gives one error line that names the format (or says the
// file is in none), never a panic.
func TestTruncatedPictures(t *testing.T) {
	for _, p := range magickPictures(t) {
		good, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := openAndRead(p); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		format := map[string]string{".png": "png", ".jpg": "jpeg", ".bmp": "bmp", ".gif": "gif"}[filepath.Ext(p)]
		for _, n := range []int{0, 7, 8, 20, 40, len(good) / 3, len(good) / 2, len(good) * 3 / 4, len(good) - 30} {
			cut := filepath.Join(t.TempDir(), filepath.Base(p))
			writeFile(t, cut, good[:n])
			err := openAndRead(cut)
			switch {
			case err == nil:
				t.Errorf("%s cut to %d of %d bytes: no error", filepath.Base(p), n, len(good))
			case strings.Contains(err.Error(), "\n"):
				t.Errorf("%s cut to %d bytes: error of several lines: %q", filepath.Base(p), n, err)
			case !errors.Is(err, loader.ErrFormat) && !strings.HasPrefix(err.Error(), format+": "):
				t.Errorf("%s cut to %d bytes: error %q does not name %s", filepath.Base(p), n, err, format)
			}
		}
	}
}

// TestHeaderClaimsTooMuch patches the size in headers so that they promise
// far more pixels than the file holds: opening or reading fails with a
// clear error, without allocating what the header claims.
func TestHeaderClaimsTooMuch(t *testing.T) {
	pics := map[string]string{}
	for _, p := range magickPictures(t) {
		pics[filepath.Base(p)] = p
	}
	cases := []struct {
		file   string
		patch  func(b []byte)
		want   string
		atOpen bool // the header alone is refused
	}{
		{"rgb.png", func(b []byte) { putBE32(b[16:], 20000, 20000) }, "png: a 20000x20000 image needs at least", true},
		{"gray16.png", func(b []byte) { putBE32(b[16:], 1<<31-1, 1) }, "png: 2147483647x1 uint16 image is too large", true},
		{"photo.jpg", func(b []byte) { patchSOF(t, b, 20000, 20000) }, "jpeg: a 20000x20000 image needs at least", true},
		{"rgb.bmp", func(b []byte) { binary.LittleEndian.PutUint32(b[22:], 20000) }, "bmp: a 40x20000 image needs at least", true},
		{"still.gif", func(b []byte) {
			binary.LittleEndian.PutUint16(b[6:], 65535)
			binary.LittleEndian.PutUint16(b[8:], 65535)
		}, "gif: 65535x65535 uint8 RGB image is too large", true},
		{"still.gif", func(b []byte) { patchGIFFrame(t, b) }, "gif: frame 0: not enough image data", false},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(pics[tc.file])
			if err != nil {
				t.Fatal(err)
			}
			tc.patch(b)
			dir := t.TempDir()
			p := filepath.Join(dir, tc.file)
			writeFile(t, p, b)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err = openAndRead(p)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want %s...", err, tc.want)
			}
			if a := after.TotalAlloc - before.TotalAlloc; a > 64<<20 {
				t.Errorf("allocated %d bytes", a)
			}
			// As the first frame of a folder, the same error names the file.
			src, err := Open(context.Background(), dir)
			if !tc.atOpen && err == nil {
				err = src.ReadChunk(context.Background(), 0, make([]int, len(src.Meta().Axes)),
					make([]byte, src.Meta().Levels[0].ChunkBytes(src.Meta().DType)))
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.file+": "+tc.want) {
				t.Errorf("folder: %v, want %s: %s...", err, tc.file, tc.want)
			}
		})
	}
}

// putBE32 writes two big-endian 32-bit numbers (a PNG's IHDR width and
// height).
func putBE32(b []byte, w, h uint32) {
	binary.BigEndian.PutUint32(b, w)
	binary.BigEndian.PutUint32(b[4:], h)
}

// patchSOF sets the size in a JPEG's frame header.
func patchSOF(t *testing.T, b []byte, w, h uint16) {
	for i := 2; i+9 < len(b); i++ {
		if b[i] == 0xff && (b[i+1] == 0xc0 || b[i+1] == 0xc2) {
			binary.BigEndian.PutUint16(b[i+5:], h)
			binary.BigEndian.PutUint16(b[i+7:], w)
			return
		}
	}
	t.Fatal("no frame header")
}

// patchGIFFrame makes the first frame of a GIF 65535x65535, its data
// unchanged.
func patchGIFFrame(t *testing.T, b []byte) {
	i := 13
	if b[10]&0x80 != 0 {
		i += 3 * (2 << (b[10] & 7))
	}
	for i < len(b) && b[i] == 0x21 {
		i += 2
		for i < len(b) && b[i] != 0 {
			i += int(b[i]) + 1
		}
		i++
	}
	if i+9 >= len(b) || b[i] != 0x2c {
		t.Fatal("no image descriptor")
	}
	binary.LittleEndian.PutUint16(b[i+5:], 65535)
	binary.LittleEndian.PutUint16(b[i+7:], 65535)
}
