//go:build unix

package sequence

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader"
	"vastview/loader/internal/faulttest"
)

// TestGIFShrunkWhileReading opens an animation of noise, reads every
// frame, cuts the file to a memory page boundary near its middle and reads
// every frame again, last first: each frame reads as before or fails with
// a truncated error; the first frame reads, the last does not.
func TestGIFShrunkWhileReading(t *testing.T) {
	faulttest.Run(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "noise.gif")
		writeNoiseGIF(t, path, 8)
		ctx := context.Background()
		src, err := OpenGIF(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		m := src.Meta()
		n, size := m.Shape[0], m.Levels[0].ChunkBytes(m.DType)
		whole := make([][]byte, n)
		for k := range whole {
			whole[k] = make([]byte, size)
			if err := src.ReadChunk(ctx, 0, []int{k, 0, 0, 0}, whole[k]); err != nil {
				t.Fatalf("frame %d of the whole file: %v", k, err)
			}
		}
		// The canvas shows frame 0 again: frame n-1 is drawn anew.
		if err := src.ReadChunk(ctx, 0, []int{0, 0, 0, 0}, whole[0]); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, st.Size()/2&^int64(os.Getpagesize()-1)); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, size)
		for k := n - 1; k >= 0; k-- {
			err := src.ReadChunk(ctx, 0, []int{k, 0, 0, 0}, buf)
			switch {
			case err != nil && k == 0:
				t.Errorf("frame 0 fails after the cut: %v", err)
			case err != nil && (!errors.Is(err, loader.ErrTruncated) || err.Error() != fmt.Sprintf("gif: frame %d: the file changed while it was read: file is truncated", k)):
				t.Errorf("frame %d: error %q", k, err)
			case err == nil && k == n-1:
				t.Errorf("frame %d reads after the cut", k)
			case err == nil && !bytes.Equal(buf, whole[k]):
				t.Errorf("frame %d reads other samples after the cut", k)
			}
		}
	})
}

// writeNoiseGIF writes an animation of frames of 256x256 random pixels
// of a 256-colour palette, which hardly compress.
func writeNoiseGIF(t *testing.T, path string, frames int) {
	pal := make(color.Palette, 256)
	for i := range pal {
		pal[i] = color.RGBA{uint8(i), uint8(255 - i), uint8(i * 7), 255}
	}
	rng := rand.New(rand.NewSource(1))
	a := &gif.GIF{}
	for k := 0; k < frames; k++ {
		img := image.NewPaletted(image.Rect(0, 0, 256, 256), pal)
		rng.Read(img.Pix)
		a.Image = append(a.Image, img)
		a.Delay = append(a.Delay, 10)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
