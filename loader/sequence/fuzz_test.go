package sequence

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// seedFiles are the fuzz seeds: small PNG, JPEG, GIF and BMP files made
// by ImageMagick and Pillow.
func seedFiles(t testing.TB) map[string][]byte {
	paths, err := filepath.Glob("testdata/*.*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no seeds in testdata: %v", err)
	}
	seeds := make(map[string][]byte)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		seeds[p] = b
	}
	return seeds
}

// FuzzFrame reads a PNG, JPEG, BMP or GIF file from arbitrary bytes as
// Open and ReadChunk do: it must return an error or fill the buffer with
// samples the header describes, never panic or allocate what a header
// claims beyond the input's size.
func FuzzFrame(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		if sniff(data) == kindGIF {
			fuzzGIF(t, data)
			return
		}
		fuzzPicture(t, data)
	})
}

// fuzzPicture decodes a PNG, JPEG or BMP file.
func fuzzPicture(t *testing.T, data []byte) {
	info, err := parseHeader(data)
	if err == nil {
		err = info.fits(int64(len(data)))
	}
	if err != nil {
		return
	}
	checkInfo(t, &info)
	if info.bytes() > 1<<22 {
		return
	}
	dst := make([]byte, info.bytes())
	if err := decodeFrame(data, &info, dst); err != nil {
		return
	}
	checkDepth(t, &info, dst)
	// A frame of another shape is refused.
	other := info
	other.w++
	if err := decodeFrame(data, &other, make([]byte, other.bytes())); err == nil {
		t.Fatal("frame decoded against a header of another width")
	}
}

// fuzzGIF composes every frame of a GIF file in order, then again in
// reverse order on another canvas: the frames must be the same.
func fuzzGIF(t *testing.T, data []byte) {
	g, info, err := indexGIF(data)
	if err != nil {
		return
	}
	checkInfo(t, &info)
	n := len(g.frames)
	if info.bytes()*n > 1<<22 {
		return
	}
	forward := newCanvas(g, info.c, info.depth, nil)
	frames := make([][]byte, n)
	for i := range frames {
		if err := forward.seek(i); err != nil {
			return
		}
		frames[i] = bytes.Clone(forward.pix)
		checkDepth(t, &info, frames[i])
	}
	back := newCanvas(g, info.c, info.depth, nil)
	for i := n - 1; i >= 0; i-- {
		if err := back.seek(i); err != nil {
			t.Fatalf("frame %d read forwards, but not backwards: %v", i, err)
		}
		if !bytes.Equal(back.pix, frames[i]) {
			t.Fatalf("frame %d differs when read backwards", i)
		}
	}
}

// checkInfo fails t unless a header accepted describes pictures the
// loader can hold.
func checkInfo(t *testing.T, info *frameInfo) {
	if info.w <= 0 || info.h <= 0 || (info.c != 1 && info.c != 3) || info.dtype.Size() == 0 {
		t.Fatalf("header accepted with %+v", info)
	}
	if info.rgb != (info.c == 3) || (info.depth != 0 && info.depth != 1 && info.depth != 2 && info.depth != 4) {
		t.Fatalf("header accepted with %+v", info)
	}
	if err := pictureMeta(info, 2, []float64{0.1}).Validate(); err != nil {
		t.Fatalf("metadata of %+v: %v", info, err)
	}
}

// checkDepth fails t if samples stored with fewer bits exceed their range.
func checkDepth(t *testing.T, info *frameInfo, samples []byte) {
	if info.depth == 0 {
		return
	}
	for i, v := range samples {
		if int(v) >= 1<<info.depth {
			t.Fatalf("sample %d is %d in a %d-bit image", i, v, info.depth)
		}
	}
}

// TestSeedsDecode checks that every fuzz seed is a picture that decodes.
func TestSeedsDecode(t *testing.T) {
	for p, b := range seedFiles(t) {
		if sniff(b) == kindGIF {
			g, info, err := indexGIF(b)
			if err == nil {
				err = newCanvas(g, info.c, info.depth, nil).seek(len(g.frames) - 1)
			}
			if err != nil {
				t.Errorf("%s: %v", p, err)
			}
			continue
		}
		info, err := parseHeader(b)
		if err == nil {
			err = decodeFrame(b, &info, make([]byte, info.bytes()))
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
