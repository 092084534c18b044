package session

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io/fs"
	"math"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/prefs"
	"vastview/render"
)

// arraySource is a ZYX uint16 volume in memory, one chunk a plane.
type arraySource struct {
	meta *loader.Meta
	data []uint16
}

func (s *arraySource) Meta() *loader.Meta { return s.meta }
func (s *arraySource) Close() error       { return nil }
func (s *arraySource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	n := s.meta.Shape[1] * s.meta.Shape[2]
	for i, v := range s.data[idx[0]*n : (idx[0]+1)*n] {
		binary.LittleEndian.PutUint16(dst[2*i:], v)
	}
	return nil
}

// volume is a ZYX uint16 source of the given shape and spacing (in
// micrometres), whose sample at (z, y, x) is f(z, y, x).
func volume(shape [3]int, spacing [3]float64, f func(z, y, x int) uint16) *arraySource {
	m := loader.NewMeta("mem", "ZYX", shape[:], loader.Uint16, []int{1, shape[1], shape[2]}, spacing[:],
		[]string{"micrometer", "micrometer", "micrometer"})
	data := make([]uint16, shape[0]*shape[1]*shape[2])
	for z := 0; z < shape[0]; z++ {
		for y := 0; y < shape[1]; y++ {
			for x := 0; x < shape[2]; x++ {
				data[(z*shape[1]+y)*shape[2]+x] = f(z, y, x)
			}
		}
	}
	return &arraySource{meta: m, data: data}
}

// layerFiles are the files the layer tests open by name: an image of
// 4×64×96 samples of 1 µm, and labels of it made at half the resolution
// (4×32×48 samples of 2 µm in X and Y), another image a kilometre away,
// and labels in seconds.
func layerFiles() map[string]func() loader.Source {
	cell := func(z, y, x int) uint16 {
		if (y/8+x/12)%3 == 0 {
			return 0
		}
		return uint16(1 + z + (y/8)*10 + x/12)
	}
	return map[string]func() loader.Source{
		"/data/cells.tif": func() loader.Source {
			return volume([3]int{4, 64, 96}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 { return uint16(100 + 7*x + 5*y + 50*z) })
		},
		"/data/cells_labels.tif": func() loader.Source {
			return volume([3]int{4, 32, 48}, [3]float64{1, 2, 2}, cell)
		},
		"/data/far.tif": func() loader.Source {
			s := volume([3]int{4, 32, 48}, [3]float64{1, 1, 1}, cell)
			s.meta.Levels[0].Translation = []float64{0, 1e9, 0}
			return s
		},
	}
}

// openFiles opens the named layer files.
func openFiles(files map[string]func() loader.Source) func(ctx context.Context, path string) (loader.Source, error) {
	return func(ctx context.Context, path string) (loader.Source, error) {
		if f, ok := files[path]; ok {
			return f(), nil
		}
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
}

// copyImage keeps a frame's picture, which the drawer reuses.
func copyImage(img *image.RGBA) *image.RGBA {
	c := image.NewRGBA(img.Rect)
	copy(c.Pix, img.Pix)
	return c
}

// labelUnder is the label the test's labels hold under the centre of
// screen pixel (x, y) of frame f of the image: the label sample whose
// centre is nearest that point, or 0.
func labelUnder(t *testing.T, labels loader.Source, f *Frame, x, y int) uint32 {
	t.Helper()
	m := labels.Meta()
	p := f.View.ToPlane(labelsBase(), float64(x)+0.5, float64(y)+0.5)
	// Base sample i covers [i, i+1) of the plane, centred at i µm; label
	// sample j is centred at 2j µm. The labels reach half a base sample
	// beyond the image.
	ly, lx := int(math.Floor((p.Row-0.5)/2+0.5)), int(math.Floor((p.Col-0.5)/2+0.5))
	if ly < 0 || lx < 0 || ly >= m.Shape[1] || lx >= m.Shape[2] {
		return 0
	}
	a := labels.(*arraySource)
	return uint32(a.data[(f.View.Z*m.Shape[1]+ly)*m.Shape[2]+lx])
}

// gen is the generation of the newest view asked for.
func (h *harness) gen() uint64 {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	return h.s.gen
}

func labelsBase() *loader.Meta { return layerFiles()["/data/cells.tif"]().Meta() }

func TestALabelLayerLiesOverTheImage(t *testing.T) {
	files := layerFiles()
	p := prefs.New(&prefs.MapStore{})
	h := newHarness(t, Options{Open: openFiles(files), Prefs: p})
	h.open(files["/data/cells.tif"](), "/data/cells.tif")
	h.s.AddLayer("/data/cells_labels.tif", LayerAuto)
	f := h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Layers == 1 })
	f = h.settled(f)
	f.Img = copyImage(f.Img)
	ls := h.s.Layers()
	if !ls[0].Labels || !ls[0].Visible || ls[0].Name != "cells_labels.tif" || ls[0].Opacity != defaultLabelOpacity {
		t.Fatalf("layer %+v", ls[0])
	}
	// The same view with the layer hidden: the picture under the labels.
	hidden := ls[0]
	hidden.Visible = false
	h.s.SetLayer(0, hidden)
	gen := h.gen()
	base := h.waitFrame(func(f *Frame) bool { return f.gen >= gen && f.Info.Complete })
	if base.Layers != 0 || base.View.Zoom != f.View.Zoom || base.View.Center != f.View.Center {
		t.Fatalf("hidden: %d layers, zoom %g centre %v; shown: zoom %g centre %v", base.Layers, base.View.Zoom, base.View.Center, f.View.Zoom, f.View.Center)
	}
	under := copyImage(base.Img)
	h.s.SetLayer(0, ls[0])
	labels := files["/data/cells_labels.tif"]()
	checked := 0
	a := int(defaultLabelOpacity*255 + 0.5)
	for y := 0; y < f.Img.Rect.Dy(); y += 5 {
		for x := 0; x < f.Img.Rect.Dx(); x += 5 {
			id := labelUnder(t, labels, f, x, y)
			b, got := under.RGBAAt(x, y), f.Img.RGBAAt(x, y)
			want := b
			if id != 0 {
				c := render.LabelColour(id)
				want.R = uint8((int(c[0])*a+127)/255 + (int(b.R)*(255-a)+127)/255)
				want.G = uint8((int(c[1])*a+127)/255 + (int(b.G)*(255-a)+127)/255)
				want.B = uint8((int(c[2])*a+127)/255 + (int(b.B)*(255-a)+127)/255)
				checked++
			}
			if got != want {
				t.Fatalf("screen (%d,%d) label %d: %v, want %v over %v", x, y, id, got, want, b)
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d labelled pixels checked", checked)
	}

	// Hover names the label under the pointer.
	x, y := 200.0, 150.0
	h.s.Hover(x, y, true)
	if id := labelUnder(t, labels, f, int(x), int(y)); id == 0 {
		t.Fatal("no label under the pointer: move it")
	} else if got := h.s.HoverText(); !strings.HasSuffix(got, fmt.Sprintf("   label %d", id)) {
		t.Errorf("hover %q, want label %d", got, id)
	}

	// Picking the label under the pointer shows it alone.
	id := labelUnder(t, labels, f, int(x), int(y))
	h.s.PickLabel(x, y)
	if got := h.s.Layers()[0].Selected; got != id {
		t.Fatalf("picked label %d, want %d", got, id)
	}
	gen = h.gen()
	f = h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.gen >= gen })
	for yy := 0; yy < f.Img.Rect.Dy(); yy += 5 {
		for xx := 0; xx < f.Img.Rect.Dx(); xx += 5 {
			if l := labelUnder(t, labels, f, xx, yy); l != id && f.Img.RGBAAt(xx, yy) != under.RGBAAt(xx, yy) {
				t.Fatalf("label %d at (%d,%d) drawn while %d is selected", l, xx, yy, id)
			}
		}
	}

	// Hidden, the layer leaves the image as it is.
	l := h.s.Layers()[0]
	l.Visible, l.Selected = false, 0
	h.s.SetLayer(0, l)
	gen = h.gen()
	f = h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.gen >= gen })
	if f.Layers != 0 {
		t.Fatalf("%d layers drawn with the only one hidden", f.Layers)
	}
	if string(f.Img.Pix) != string(under.Pix) {
		t.Error("a hidden layer changes the picture")
	}

	// The view remembers its layers; reopened, the file has them again.
	l.Visible, l.Outline, l.Opacity = true, true, 0.4
	h.s.SetLayer(0, l)
	h.s.SaveView()
	h2 := newHarness(t, Options{Open: openFiles(files), Prefs: p})
	h2.open(files["/data/cells.tif"](), "/data/cells.tif")
	h2.waitUpdate(func(u Update) bool { return u.Changes&LayersChanged != 0 && len(h2.s.Layers()) == 1 })
	if got := h2.s.Layers()[0]; !got.Labels || !got.Visible || !got.Outline || got.Opacity != 0.4 || got.Path != "/data/cells_labels.tif" {
		t.Errorf("reopened with layer %+v", got)
	}
}

func TestLayersThatCannotBeLaidOverAreProblems(t *testing.T) {
	files := layerFiles()
	h := newHarness(t, Options{Open: openFiles(files)})
	h.open(files["/data/cells.tif"](), "/data/cells.tif")
	h.s.AddLayer("/data/far.tif", LayerAuto)
	u := h.waitUpdate(func(u Update) bool { return len(u.Problems) > 0 })
	if p := u.Problems[0]; p.Subject != "far.tif" || !strings.Contains(p.Err.Error(), "cannot be laid over cells.tif") || !strings.Contains(p.Err.Error(), "outside the image along Y") {
		t.Errorf("problem %q: %v", p.Subject, p.Err)
	}
	h.s.AddLayer("/data/missing.tif", LayerLabels)
	u = h.waitUpdate(func(u Update) bool { return len(u.Problems) > 0 })
	if p := u.Problems[0]; !errors.Is(p.Err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", p.Err)
	}
	if n := len(h.s.Layers()); n != 0 {
		t.Errorf("%d layers added", n)
	}
}

// TestAFilesOwnLabelsAreOffered opens an image whose file offers label
// images (an OME-Zarr labels group): they are laid over it as label
// layers.
func TestAFilesOwnLabelsAreOffered(t *testing.T) {
	files := layerFiles()
	files["/data/img.zarr/labels/cells"] = files["/data/cells_labels.tif"]
	h := newHarness(t, Options{Open: openFiles(files)})
	img := files["/data/cells.tif"]().(*arraySource)
	img.meta.Labels = []string{"labels/cells"}
	h.open(img, "/data/img.zarr")
	h.waitUpdate(func(u Update) bool { return u.Changes&LayersChanged != 0 && len(h.s.Layers()) == 1 })
	if l := h.s.Layers()[0]; !l.Labels || l.Path != "/data/img.zarr/labels/cells" || l.Name != "cells" {
		t.Errorf("offered layer %+v", l)
	}
}

// TestLayersReachBeyondTheImage lays an image over the data that reaches
// two planes before it and 48 µm to the left: the positions the keys and
// the slider reach, and the fitted view, span both; a plane only the
// layer has shows the layer alone.
func TestLayersReachBeyondTheImage(t *testing.T) {
	files := layerFiles()
	files["/data/wide.tif"] = func() loader.Source {
		s := volume([3]int{6, 64, 144}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 { return uint16(1000 + 10*x) })
		s.meta.Levels[0].Translation = []float64{-2, 0, -48}
		return s
	}
	h := newHarness(t, Options{Open: openFiles(files)})
	h.open(files["/data/cells.tif"](), "/data/cells.tif")
	h.s.AddLayer("/data/wide.tif", LayerAuto)
	h.waitUpdate(func(u Update) bool { return u.Changes&LayersChanged != 0 && len(h.s.Layers()) == 1 })
	if l := h.s.Layers()[0]; l.Labels || l.Blending != render.Over || l.Opacity != 1 {
		t.Errorf("image layer %+v", l)
	}
	if first, last := h.s.AxisRange('Z'); first != -2 || last != 3 {
		t.Errorf("Z reaches %d..%d, want -2..3", first, last)
	}
	if first, last := h.s.AxisRange('X'); first != -48 || last != 95 {
		t.Errorf("X reaches %d..%d, want -48..95", first, last)
	}
	h.s.Press(KeyHome)
	if z := h.s.View().Z; z != -2 {
		t.Fatalf("Home went to plane %d, want -2", z)
	}
	gen := h.gen()
	f := h.waitFrame(func(f *Frame) bool { return f.gen >= gen && f.Info.Complete && !f.autoPending() })
	if f.Layers != 1 {
		t.Fatalf("plane -2 drawn with %d layers", f.Layers)
	}
	// Fitted, the view shows all 144 µm of the layer's width: the data's
	// 96 samples on the right two thirds.
	m := labelsBase()
	bg := color32()
	if f.View.Zoom > float64(f.View.Width)/144+1e-9 {
		t.Errorf("fitted at zoom %g: the layer's 144 samples do not fit %d pixels", f.View.Zoom, f.View.Width)
	}
	x0, _ := f.View.ToScreen(m, render.Point{Col: -40, Row: 32})
	x1, _ := f.View.ToScreen(m, render.Point{Col: 40, Row: 32})
	_, yOff := f.View.ToScreen(m, render.Point{Col: 0, Row: -5})
	if got := f.Img.RGBAAt(int(x0), f.Img.Rect.Dy()/2); got == bg {
		t.Errorf("plane -2, left of the data, where the layer is: background")
	}
	if got := f.Img.RGBAAt(int(x1), f.Img.Rect.Dy()/2); got == bg {
		t.Errorf("plane -2, over the data, where the layer is: background")
	}
	if yOff >= 0 {
		if got := f.Img.RGBAAt(int(x1), int(yOff)); got != bg {
			t.Errorf("plane -2, above data and layer: %v, want the background", got)
		}
	}
	if !strings.Contains(h.s.AxisLabel('Z'), "beyond the image") {
		t.Errorf("slider label %q at plane -2", h.s.AxisLabel('Z'))
	}
	h.s.Press(KeyEnd)
	if z := h.s.View().Z; z != 3 {
		t.Errorf("End went to plane %d, want 3", z)
	}
}

// color32 is the background colour of a frame.
func color32() color.RGBA { return color.RGBA{32, 32, 32, 255} }

// TestALabelLayersLevelsKeepIDs checks that a file taken as labels, though
// it does not say so, gets levels of its most frequent ids: every id of
// a coarser level is one of the file's.
func TestALabelLayersLevelsKeepIDs(t *testing.T) {
	src := volume([3]int{2, 512, 512}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 {
		if (y/7+x/9)%3 == 0 {
			return 0
		}
		return uint16(1 + 997*z + (y/7)*61 + x/9)
	})
	ids := map[uint16]bool{}
	for _, v := range src.data {
		ids[v] = true
	}
	d, err := OpenData("/data/cells_labels.tif", src, DataOptions{DiskRoot: "-", Labels: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	m := d.Pyr.Meta()
	if len(m.Levels) < 2 {
		t.Fatalf("%d levels", len(m.Levels))
	}
	l := &m.Levels[1]
	buf := make([]byte, l.ChunkBytes(m.DType))
	if err := d.Pyr.ReadChunk(context.Background(), 1, make([]int, len(l.Shape)), buf); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(buf); i += 2 {
		if v := binary.LittleEndian.Uint16(buf[i:]); !ids[v] {
			t.Fatalf("level 1 holds id %d, which the labels do not: a mean, not the most frequent", v)
		}
	}
}

// TestTheScaleBarIsDrawnOverThePicture shows the scale bar (on unless
// turned off, for data with physical spacing) at the bottom right of the
// image (not of the margin beside it), and B takes it away.
func TestTheScaleBarIsDrawnOverThePicture(t *testing.T) {
	files := layerFiles()
	h := newHarness(t, Options{Open: openFiles(files)})
	h.s.SetScaleBar(true)
	f := h.settled(h.open(files["/data/cells.tif"](), "/data/cells.tif"))
	px, label, ok := render.ScaleBar(labelsBase(), f.View)
	if !ok || label != "10 µm" {
		t.Fatalf("scale bar %d px %q %v", px, label, ok)
	}
	r := render.ImageRect(labelsBase(), f.View)
	w, hh := r.Max.X, r.Max.Y
	if got := f.Img.RGBAAt(w-8-px/2, hh-9); got != (color.RGBA{255, 255, 255, 255}) {
		t.Errorf("the bar's middle is %v (the image at %v)", got, r)
	}
	h.s.Rune('b')
	gen := h.gen()
	f = h.waitFrame(func(f *Frame) bool { return f.gen >= gen && f.Info.Complete })
	if got := f.Img.RGBAAt(w-8-px/2, hh-9); got == (color.RGBA{255, 255, 255, 255}) {
		t.Error("B left the scale bar")
	}
}

// TestHoverBesideTheImageReadsTheLayers hovers where only a layer has
// data: the read-out names the position and the layer's value.
func TestHoverBesideTheImageReadsTheLayers(t *testing.T) {
	files := layerFiles()
	files["/data/wide_labels.tif"] = func() loader.Source {
		s := volume([3]int{4, 64, 144}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 { return 7 })
		s.meta.Levels[0].Translation = []float64{0, 0, -48}
		return s
	}
	h := newHarness(t, Options{Open: openFiles(files)})
	h.open(files["/data/cells.tif"](), "/data/cells.tif")
	h.s.AddLayer("/data/wide_labels.tif", LayerAuto)
	f := h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Layers == 1 })
	x, y := f.View.ToScreen(labelsBase(), render.Point{Col: -20, Row: 30})
	h.s.Hover(x, y, true)
	if got := h.s.HoverText(); !strings.Contains(got, "X -20") || !strings.Contains(got, "beyond the image") || !strings.HasSuffix(got, "label 7") {
		t.Errorf("hover beside the image over the labels: %q", got)
	}
}
