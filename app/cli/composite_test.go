package cli

import (
	"bytes"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// compositeReference is a NumPy reference of additive blending: each
// channel's raw plane (written by `plane --c N --out .raw`) through its
// window and colour table, summed per pixel and clamped at 255. Arguments:
// OUT W H DTYPE, then per channel RAW LO HI TABLE (a .npy of 256×3 uint8).
const compositeReference = `
import sys, numpy as np
out, w, h, dt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
acc = np.zeros((h, w, 3), np.int64)
args = sys.argv[5:]
for i in range(0, len(args), 4):
    raw, lo, hi, table = args[i], float(args[i+1]), float(args[i+2]), np.load(args[i+3])
    v = np.fromfile(raw, dtype=np.dtype(dt).newbyteorder('<')).astype(np.float64).reshape(h, w)
    f = (v - lo) * 255 / (hi - lo)
    idx = (np.clip(f, 0, 255) + 0.5).astype(np.int64) & 255
    acc += table[idx]
rgb = np.clip(acc, 0, 255).astype(np.uint8)
rgba = np.concatenate([rgb, np.full((h, w, 1), 255, np.uint8)], axis=2)
rgba.tofile(out)
`

// refChannel is one channel of a reference composite.
type refChannel struct {
	c      int
	lo, hi string
	table  string // .npy of the colour table
}

// checkComposite compares the PNG at png with the NumPy reference of chans
// drawn from src's raw planes.
func checkComposite(t *testing.T, dir, src, png string, w, h int, dtype string, chans []refChannel, planeArgs ...string) {
	t.Helper()
	args := []string{filepath.Join(dir, "ref.rgba"), strconv.Itoa(w), strconv.Itoa(h), dtype}
	for _, ch := range chans {
		raw := filepath.Join(dir, "c"+strconv.Itoa(ch.c)+".raw")
		mustRun(t, append([]string{"plane", src, "--c", strconv.Itoa(ch.c), "--out", raw}, planeArgs...)...)
		args = append(args, raw, ch.lo, ch.hi, ch.table)
	}
	testtool.RunPython(t, compositeReference, args...)
	want, err := os.ReadFile(args[0])
	if err != nil {
		t.Fatal(err)
	}
	img := testtool.ReadPNG(t, png)
	if img.Bounds() != image.Rect(0, 0, w, h) {
		t.Fatalf("%s is %v, want %d×%d", png, img.Bounds(), w, h)
	}
	got := make([]byte, 0, w*h*4)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			got = append(got, byte(r>>8), byte(g>>8), byte(b>>8), byte(a>>8))
		}
	}
	if !bytes.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				p := i / 4
				t.Fatalf("%s differs from the NumPy composite first at (%d, %d): %v, want %v", png, p%w, p/w, got[p*4:p*4+4], want[p*4:p*4+4])
			}
		}
	}
}

// TestPlaneCompositeOfImageJHyperstack: a two-channel ImageJ hyperstack
// saved in composite mode with its display ranges and LUTs (by tifffile)
// is drawn by default as the composite ImageJ shows: each channel through
// its range and LUT, added.
func TestPlaneCompositeOfImageJHyperstack(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy")
	dir := t.TempDir()
	src := filepath.Join(dir, "hyper.tif")
	testtool.RunPython(t, `
import sys, os, numpy as np, tifffile
d = sys.argv[2]
rng = np.random.default_rng(7)
a = rng.integers(0, 4096, size=(3, 2, 96, 130), dtype=np.uint16)  # Z C Y X
green = np.zeros((3, 256), np.uint8); green[1] = np.arange(256)
fire = np.zeros((3, 256), np.uint8)
fire[0] = np.clip(np.arange(256) * 3, 0, 255); fire[1] = np.clip(np.arange(256) * 3 - 255, 0, 255); fire[2] = 255 - np.arange(256)
tifffile.imwrite(sys.argv[1], a, imagej=True, metadata={'axes': 'ZCYX', 'mode': 'composite',
    'Ranges': (100.0, 3000.0, 500.0, 2500.0), 'LUTs': [green, fire]})
np.save(os.path.join(d, 'green.npy'), green.T.copy())
np.save(os.path.join(d, 'fire.npy'), fire.T.copy())
`, src, dir)
	out := filepath.Join(dir, "z1.png")
	mustRun(t, "plane", src, "--z", "1", "--out", out)
	checkComposite(t, dir, src, out, 130, 96, "uint16", []refChannel{
		{0, "100", "3000", filepath.Join(dir, "green.npy")},
		{1, "500", "2500", filepath.Join(dir, "fire.npy")},
	}, "--z", "1")

	// --channels picks, --colors and --windows override in that order.
	testtool.RunPython(t, `
import sys, numpy as np
i = np.arange(256)
np.save(sys.argv[1], np.stack([(255 * i + 127) // 255, 0 * i, 0 * i], axis=1).astype(np.uint8))
np.save(sys.argv[2], np.stack([0 * i, (255 * i + 127) // 255, (255 * i + 127) // 255], axis=1).astype(np.uint8))
`, filepath.Join(dir, "red.npy"), filepath.Join(dir, "cyan.npy"))
	mustRun(t, "plane", src, "--z", "2", "--channels", "1,0", "--colors", "#ff0000,cyan", "--windows", "0:4095,", "--out", out)
	checkComposite(t, dir, src, out, 130, 96, "uint16", []refChannel{
		{1, "0", "4095", filepath.Join(dir, "red.npy")},
		{0, "100", "3000", filepath.Join(dir, "cyan.npy")},
	}, "--z", "2")

	// .raw with --channels: the planes of the channels picked, in turn.
	raw := filepath.Join(dir, "both.raw")
	mustRun(t, "plane", src, "--z", "2", "--channels", "1,0", "--out", raw)
	got, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	c0, _ := os.ReadFile(filepath.Join(dir, "c0.raw"))
	c1, _ := os.ReadFile(filepath.Join(dir, "c1.raw"))
	if !bytes.Equal(got, append(append([]byte(nil), c1...), c0...)) {
		t.Errorf("plane --channels 1,0 --out .raw is not channel 1's plane then channel 0's")
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--channels", "0,2"}, "channel numbers from 0 to 1"},
		{[]string{"--channels", "0", "--c", "1"}, "not both"},
		{[]string{"--channels", "0,1", "--colors", "red,green,blue"}, "3 colours for 2 channels"},
		{[]string{"--channels", "0,1", "--colors", "mauve"}, `unknown colormap "mauve"`},
		{[]string{"--channels", "all", "--windows", "5:1"}, "LO < HI"},
		{[]string{"--c", "1", "--colors", "red"}, "give --channels"},
	} {
		code, _, errs := vv(append([]string{"plane", src, "--out", out}, c.args...)...)
		if code != 1 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("plane %v: exit %d, %q; want exit 1 and one line with %q", c.args, code, errs, c.want)
		}
	}
}

// TestPlaneCompositeOfOMETIFF: a three-channel OME-TIFF whose channels
// have names and colours (OME's signed 32-bit RGBA) is drawn as the
// composite of those colours; info names them.
func TestPlaneCompositeOfOMETIFF(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy")
	dir := t.TempDir()
	src := filepath.Join(dir, "three.ome.tif")
	testtool.RunPython(t, `
import sys, os, numpy as np, tifffile
d = sys.argv[2]
rng = np.random.default_rng(3)
a = rng.integers(0, 60000, size=(3, 70, 90), dtype=np.uint16)
rgba = lambda r, g, b: int(np.array([(r << 24) | (g << 16) | (b << 8) | 255], np.uint32).view(np.int32)[0])
tifffile.imwrite(sys.argv[1], a, metadata={'axes': 'CYX', 'Channel': {'Name': ['DAPI', 'GFP', 'mCherry'],
    'Color': [rgba(0, 0, 255), rgba(0, 255, 0), rgba(255, 0, 128)]}})
i = np.arange(256)
for name, c in [('blue', (0, 0, 255)), ('green', (0, 255, 0)), ('pink', (255, 0, 128))]:
    np.save(os.path.join(d, name + '.npy'), np.stack([(v * i + 127) // 255 for v in c], axis=1).astype(np.uint8))
`, src, dir)
	out := filepath.Join(dir, "c.png")
	mustRun(t, "plane", src, "--windows", "1000:50000,0:65535,20000:40000", "--out", out)
	checkComposite(t, dir, src, out, 90, 70, "uint16", []refChannel{
		{0, "1000", "50000", filepath.Join(dir, "blue.npy")},
		{1, "0", "65535", filepath.Join(dir, "green.npy")},
		{2, "20000", "40000", filepath.Join(dir, "pink.npy")},
	})
	info := mustRun(t, "info", "--json", src)
	for _, want := range []string{`"DAPI"`, `"mCherry"`, `"#ff0080"`, `"#0000ff"`} {
		if !strings.Contains(info, want) {
			t.Errorf("info --json does not give %s:\n%s", want, info)
		}
	}
}

// TestPlaneOfNoChannelShown: a file that shows none of its channels (all
// omero "active": false) has no default composite to draw; plane says so.
func TestPlaneOfNoChannelShown(t *testing.T) {
	m := loader.NewMeta("t", "CYX", []int{2, 4, 4}, loader.Uint16, []int{1, 4, 4}, nil, nil)
	m.Channels = []loader.Channel{{Hidden: true}, {Hidden: true}}
	o := planeOpts{given: map[string]bool{}}
	if _, err := o.composite(m, ".png"); err == nil || !strings.Contains(err.Error(), "none of its 2 channels") {
		t.Errorf("all channels hidden: %v", err)
	}
	o = planeOpts{channels: "1", given: map[string]bool{"channels": true}}
	if chans, err := o.composite(m, ".png"); err != nil || len(chans) != 1 || chans[0].C != 1 {
		t.Errorf("--channels 1 of hidden channels: %+v, %v", chans, err)
	}
}
