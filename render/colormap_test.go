package render

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// TestColormapTablesMatchMatplotlib compares viridis and magma with the
// colours matplotlib gives for entries 0..255, rounded to 8 bits.
func TestColormapTablesMatchMatplotlib(t *testing.T) {
	testtool.RequirePython(t, "matplotlib", "numpy")
	out := testtool.RunPython(t, `
import sys, numpy as np, matplotlib
for name in sys.argv[1:]:
    rgb = matplotlib.colormaps[name](np.arange(256))[:, :3]
    print(name, " ".join(str(int(v)) for v in np.round(rgb * 255).ravel()))
`, "viridis", "magma")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("python printed %q", out)
	}
	for _, line := range lines {
		f := strings.Fields(line)
		cm, err := ColormapNamed(f[0])
		if err != nil {
			t.Fatal(err)
		}
		if len(f) != 1+256*3 {
			t.Fatalf("%s: %d values", f[0], len(f)-1)
		}
		for i := 0; i < 256; i++ {
			for ch := 0; ch < 3; ch++ {
				want, _ := strconv.Atoi(f[1+3*i+ch])
				if got := cm.LUT[i][ch]; int(got) != want {
					t.Errorf("%s entry %d channel %d: %d, matplotlib %d", f[0], i, ch, got, want)
				}
			}
		}
	}
}

// TestGlasbeyColoursAreDistinct: label 0 is black, and the 255 label
// colours differ clearly from each other and from black and the
// background (CIE76 ΔE above 10; 2.3 is a just-noticeable difference).
func TestGlasbeyColoursAreDistinct(t *testing.T) {
	cm, err := ColormapNamed("labels")
	if err != nil || cm.Name != "glasbey" || !cm.Label {
		t.Fatalf("labels colormap: %+v, %v", cm, err)
	}
	if cm.LUT[0] != [3]uint8{} {
		t.Errorf("label 0 is %v, want black", cm.LUT[0])
	}
	minDist := math.Inf(1)
	for i := 1; i < 256; i++ {
		d := math.Sqrt(labDist(toLab(cm.LUT[i]), toLab(background)))
		for j := 0; j < i; j++ {
			d = min(d, math.Sqrt(labDist(toLab(cm.LUT[i]), toLab(cm.LUT[j]))))
		}
		minDist = min(minDist, d)
	}
	t.Logf("closest label colours: ΔE %.1f", minDist)
	if minDist < 10 {
		t.Errorf("closest label colours are ΔE %.1f apart", minDist)
	}
}

// TestLabelColormapIgnoresWindow: label values map to colours directly:
// 0 black, v and v+255 alike, neighbours different, for any window.
func TestLabelColormapIgnoresWindow(t *testing.T) {
	cm, _ := ColormapNamed("glasbey")
	vals := []uint16{0, 1, 2, 256, 257, 40000}
	buf := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(buf[2*i:], v)
	}
	a := Plane(buf, loader.Uint16, len(vals), 1, 0, 10, cm)
	b := Plane(buf, loader.Uint16, len(vals), 1, 500, 60000, cm)
	if string(a.Pix) != string(b.Pix) {
		t.Error("the window changed a label image")
	}
	px := func(i int) [4]uint8 { return pixel(a, i, 0) }
	if px(0) != [4]uint8{0, 0, 0, 255} {
		t.Errorf("label 0: %v", px(0))
	}
	if px(1) != px(3) || px(2) != px(4) {
		t.Errorf("labels 1, 2 and 256, 257 do not repeat: %v %v %v %v", px(1), px(2), px(3), px(4))
	}
	if px(1) == px(2) || px(1) == px(0) {
		t.Error("neighbouring labels share a colour")
	}
	// Wide and float label types agree with the 16-bit table.
	f := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(f[4*i:], math.Float32bits(float32(v)))
	}
	if c := Plane(f, loader.Float32, len(vals), 1, 0, 1, cm); string(c.Pix) != string(a.Pix) {
		t.Error("float32 labels are coloured differently from uint16 ones")
	}
}

func TestIndexEdges(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want int
	}{{math.NaN(), 0}, {math.Inf(-1), 0}, {math.Inf(1), 255}, {-5, 0}, {0, 0}, {0.5 / 255 * 100, 1},
		{50, 128}, {99.9, 255}, {100, 255}, {1e300, 255}} {
		if got := index(c.v, 0, 100); got != c.want {
			t.Errorf("index(%g, 0, 100) = %d, want %d", c.v, got, c.want)
		}
	}
}

func TestColourRampsFromChannelColours(t *testing.T) {
	cm, err := ColormapNamed("#FF8000")
	if err != nil {
		t.Fatal(err)
	}
	if cm.LUT[0] != [3]uint8{0, 0, 0} || cm.LUT[255] != [3]uint8{255, 128, 0} || cm.LUT[128] != [3]uint8{128, 64, 0} {
		t.Errorf("ramp to #FF8000: %v %v %v", cm.LUT[0], cm.LUT[128], cm.LUT[255])
	}
	if again, _ := ColormapNamed("#ff8000"); again != cm {
		t.Error("a ramp is made again for each use")
	}
	if _, err := ColormapNamed("#ff80zz"); err == nil {
		t.Error("a malformed colour was accepted")
	}
}
