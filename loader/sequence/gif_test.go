package sequence

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// gifFrames are the frames of the animations ImageMagick writes: a 16x12
// screen with a blue square on a transparent ground, then smaller frames
// at offsets, two of them with transparent pixels.
var gifFrames = [][]string{
	{"-size", "16x12", "xc:none", "-fill", "blue", "-draw", "rectangle 2,2 9,7"},
	{"(", "-size", "7x5", "xc:lime", "-alpha", "set", "-channel", "A", "-fx", "i==3&&j==2?0:1", "+channel", "-repage", "+4+3", ")"},
	{"(", "-size", "6x6", "xc:yellow", "-alpha", "set", "-channel", "A", "-fx", "i<3&&j<2?0:1", "+channel", "-repage", "+9+5", ")"},
	{"(", "-size", "5x4", "xc:red", "-repage", "+1+7", ")"},
}

// coalesced returns the frames of a GIF as ImageMagick composes them
// (-coalesce), as planes of red, green and blue per frame; pixels it
// leaves transparent are black.
func coalesced(t *testing.T, path string, w, h int) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "frames.rgba")
	convert(t, path, "-coalesce", "-depth", "8", "rgba:"+out)
	rgba, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rgb := make([]byte, 0, len(rgba)/4*3)
	for p := 0; p+3 < len(rgba); p += 4 {
		if rgba[p+3] == 0 {
			rgb = append(rgb, 0, 0, 0)
		} else {
			rgb = append(rgb, rgba[p:p+3]...)
		}
	}
	var planes []byte
	for f := 0; f < len(rgb); f += 3 * w * h {
		planes = append(planes, planar(rgb[f:f+3*w*h], 3, w, h, 1)...)
	}
	return planes
}

// TestGIFAnimation opens animations ImageMagick wrote with each disposal
// and compares every frame with ImageMagick's composition of it, black
// where nothing opaque has been drawn.
func TestGIFAnimation(t *testing.T) {
	cases := []struct {
		name    string
		dispose []string // per frame
		opts    []string // before the output
	}{
		{"none", []string{"None", "None", "None", "None"}, nil},
		{"background", []string{"Background", "Background", "Background", "Background"}, nil},
		{"previous", []string{"Previous", "Previous", "Previous", "Previous"}, nil},
		{"mixed", []string{"None", "Previous", "Background", "None"}, []string{"-interlace", "GIF"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "anim.gif")
			var args []string
			for i, f := range gifFrames {
				args = append(append(args, "-dispose", tc.dispose[i]), f...)
			}
			convert(t, append(append(append(args, tc.opts...), "-loop", "0"), "GIF:"+p)...)
			want := ""
			for _, d := range tc.dispose {
				want += d + ";"
			}
			if got := identify(t, "%D;", p); got != want {
				t.Fatalf("identify says disposals %q, want %q", got, want)
			}
			if got := identify(t, "%w,", p); got != "16,7,6,5," {
				t.Fatalf("identify says frame widths %q", got)
			}
			m, got := readAll(t, p)
			checkFormat(t, m, "gif", "TCYX", []int{4, 3, 12, 16}, loader.Uint8)
			if d := firstDiff(got, coalesced(t, p, 16, 12)); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// animationScript writes an animated GIF with Pillow from frames numpy
// chose: argv is the file, "rgb" or "gray", then the frame count; each
// frame changes a few rectangles of the one before, so that Pillow stores
// only the part that changed. It writes the frames' colours to FILE.bin
// (frame, y, x, sample).
const animationScript = `
import sys, numpy as np
from PIL import Image
path, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
h, w = 21, 30
rng = np.random.default_rng(3)
if kind == "rgb":
    pal = rng.integers(0, 256, (32, 3), dtype=np.uint8)
else:
    pal = np.repeat((np.arange(32) * 8 + 1).astype(np.uint8)[:, None], 3, axis=1)
a = rng.integers(0, 32, (h, w), dtype=np.uint8)
frames = []
for i in range(n):
    if i:
        y, x = rng.integers(0, h - 4), rng.integers(0, w - 6)
        a = a.copy()
        a[y:y+4, x:x+6] = rng.integers(0, 32, (4, 6))
    frames.append(a)
ims = []
for f in frames:
    im = Image.fromarray(f, "P")
    im.putpalette(pal.tobytes())
    ims.append(im)
ims[0].save(path, save_all=True, append_images=ims[1:], duration=40, loop=0)
show = np.stack([pal[f] for f in frames])
if kind == "gray":
    show = show[..., 0]
show.tofile(path + ".bin")
`

// TestGIFNumpy opens animations Pillow wrote from frames numpy chose:
// every sample, the frame interval as T spacing, and frames read in any
// order.
func TestGIFNumpy(t *testing.T) {
	testtool.RequirePython(t, "numpy", "PIL")
	const n, h, w = 12, 21, 30
	for _, kind := range []string{"rgb", "gray"} {
		t.Run(kind, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "anim.gif")
			testtool.RunPython(t, animationScript, p, kind, fmt.Sprint(n))
			if got := identify(t, "%w,", p); !strings.Contains(got, ",6,") {
				t.Fatalf("Pillow stored whole frames only: widths %s", got)
			}
			ref, err := os.ReadFile(p + ".bin")
			if err != nil {
				t.Fatal(err)
			}
			c, axes, shape := 3, "TCYX", []int{n, 3, h, w}
			if kind == "gray" {
				c, axes, shape = 1, "TYX", []int{n, h, w}
			}
			var want []byte
			for f := 0; f < n; f++ {
				want = append(want, planar(ref[f*c*h*w:(f+1)*c*h*w], c, w, h, 1)...)
			}
			m, got := readAll(t, p)
			checkFormat(t, m, "gif", axes, shape, loader.Uint8)
			if d := firstDiff(got, want); d != "" {
				t.Fatal(d)
			}
			if m.Spacing[0] != 0.04 || m.Units[0] != "second" {
				t.Errorf("T spacing %v %q, want 0.04 second", m.Spacing[0], m.Units[0])
			}
			readFramesAnyOrder(t, p, want, c*h*w)
		})
	}
}

// readFramesAnyOrder reads the frames of the GIF at path backwards, then
// skipping about, and compares them with want (size bytes per frame).
func readFramesAnyOrder(t *testing.T, path string, want []byte, size int) {
	t.Helper()
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	n := len(want) / size
	order := []int{n - 1, n - 2, 0, n / 2, n/2 + 3, 1, n - 1, n - 1, 2}
	for i := n - 3; i > 2; i-- {
		order = append(order, i)
	}
	dst := make([]byte, size)
	idx := make([]int, len(src.Meta().Axes))
	for _, f := range order {
		idx[0] = f
		if err := src.ReadChunk(context.Background(), 0, idx, dst); err != nil {
			t.Fatalf("frame %d: %v", f, err)
		}
		if d := firstDiff(dst, want[f*size:(f+1)*size]); d != "" {
			t.Fatalf("frame %d read after others: %s", f, d)
		}
	}
}
