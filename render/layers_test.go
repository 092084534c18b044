package render

import (
	"encoding/binary"
	"image"
	"math"
	"strings"
	"testing"

	"vastview/levels"
	"vastview/loader"
)

// renderLabelsComplete draws the ids of v until the frame is complete.
func renderLabelsComplete(t testing.TB, r *Renderer, v View, p *levels.Pyramid, gen uint64) (*image.RGBA, Info) {
	t.Helper()
	return untilComplete(t, p, func() (*image.RGBA, Info) { return r.RenderLabels(v, p, gen) })
}

// twoGrids is a base image of 64×96 samples of 0.5 µm whose first sample
// is centred at (y, x) = (10, 20) µm, and a label image of 20×30 samples
// of 1500 nm whose first is centred at (13, 24.5) µm, so that it covers
// part of the base at another resolution, in another unit.
func twoGrids() (base, lab *loader.Meta, labVal func(p []int) float64) {
	base = loader.NewMeta("mem", "YX", []int{64, 96}, loader.Uint16, []int{32, 32}, []float64{0.5, 0.5}, []string{"micrometer", "micrometer"})
	base.Levels[0].Translation = []float64{10, 20}
	lab = loader.NewMeta("mem", "YX", []int{20, 30}, loader.Uint16, []int{8, 8}, []float64{1500, 1500}, []string{"nanometer", "nanometer"})
	lab.Levels[0].Translation = []float64{13000, 24500}
	lab.Label = true
	labVal = func(p []int) float64 {
		if (p[0]+p[1])%5 == 0 {
			return 0
		}
		return float64(1 + (p[0]/3*7+p[1]/4)%300)
	}
	return base, lab, labVal
}

// nearestLabel is the label sample whose centre is nearest the centre of
// base sample (y, x), ties to the higher, or -1 off the label image.
func nearestLabel(y, x int) (int, int) {
	ly := math.Floor((10+0.5*float64(y)-13)/1.5 + 0.5)
	lx := math.Floor((20+0.5*float64(x)-24.5)/1.5 + 0.5)
	if ly < 0 || lx < 0 || ly >= 20 || lx >= 30 {
		return -1, -1
	}
	return int(ly), int(lx)
}

func TestLabelsLieWhereThePhysicalCoordinatesSay(t *testing.T) {
	base, lab, labVal := twoGrids()
	bp := openPyramid(t, &memSource{meta: base, arrays: [][]byte{makeArray(base.Shape, base.DType, func(p []int) float64 { return float64(p[0]*100 + p[1]) })}}, levels.Options{})
	lp := openPyramid(t, &memSource{meta: lab, arrays: [][]byte{makeArray(lab.Shape, lab.DType, labVal)}}, levels.Options{})
	al, err := Align(bp.Meta(), lp.Meta())
	if err != nil {
		t.Fatal(err)
	}
	v := View{Zoom: 2, Center: Point{48, 32}, Width: 192, Height: 128, Lo: 0, Hi: 7000}
	lv, ok := al.View(v, bp.Meta(), 0)
	if !ok {
		t.Fatal("the label layer is not drawn in the base's plane")
	}
	var r Renderer
	ids, info := renderLabelsComplete(t, &r, lv, lp, 1)
	if info.Level != 0 {
		t.Fatalf("labels drawn from level %d", info.Level)
	}
	le := binary.LittleEndian
	labelled := 0
	for sy := 0; sy < v.Height; sy++ {
		for sx := 0; sx < v.Width; sx++ {
			ly, lx := nearestLabel(sy/2, sx/2) // two screen pixels a base sample
			want := uint32(0)
			if ly >= 0 {
				want = uint32(labVal([]int{ly, lx}))
			}
			if got := le.Uint32(ids.Pix[sy*ids.Stride+4*sx:]); got != want {
				t.Fatalf("screen (%d,%d), base sample (%d,%d): label %d, want %d (label sample %d,%d)", sx, sy, sx/2, sy/2, got, want, ly, lx)
			}
			if want != 0 {
				labelled++
			}
		}
	}
	if labelled < 1000 {
		t.Fatalf("only %d labelled pixels: the test shows too little", labelled)
	}

	// Laid over the base at half opacity: label 0 leaves the base as it
	// is, others blend their colour in.
	var br Renderer
	img, _ := renderComplete(t, &br, v, bp, 1)
	under := image.NewRGBA(img.Rect)
	copy(under.Pix, img.Pix)
	OverlayLabels(img, ids, LabelStyle{Opacity: 0.5})
	for sy := 0; sy < v.Height; sy += 3 {
		for sx := 0; sx < v.Width; sx += 3 {
			id := le.Uint32(ids.Pix[sy*ids.Stride+4*sx:])
			b, got := pixel(under, sx, sy), pixel(img, sx, sy)
			want := b
			if id != 0 {
				c := LabelColour(id)
				for k := range 3 {
					want[k] = uint8((int(c[k])*128+127)/255 + (int(b[k])*127+127)/255)
				}
			}
			if got != want {
				t.Fatalf("(%d,%d) label %d: %v over %v = %v, want %v", sx, sy, id, LabelColour(id), b, got, want)
			}
		}
	}

	// A plane of a volume the layer does not reach is not drawn.
	vol := loader.NewMeta("mem", "ZYX", []int{10, 64, 96}, loader.Uint16, []int{1, 32, 32}, []float64{1, 0.5, 0.5}, []string{"micrometer", "micrometer", "micrometer"})
	lab3 := loader.NewMeta("mem", "ZYX", []int{2, 20, 30}, loader.Uint16, []int{1, 8, 8}, []float64{1, 1.5, 1.5}, []string{"micrometer", "micrometer", "micrometer"})
	lab3.Levels[0].Translation = []float64{4, 0, 0}
	al3, err := Align(vol, lab3)
	if err != nil {
		t.Fatal(err)
	}
	for z, want := range map[int]int{3: -1, 4: 0, 5: 1, 6: -1} {
		lv, ok := al3.View(View{Z: z, Zoom: 1, Width: 10, Height: 10}, vol, 0)
		if ok != (want >= 0) || ok && lv.Z != want {
			t.Errorf("base plane %d: layer plane %d (drawn %v), want %d", z, lv.Z, ok, want)
		}
	}
}

func TestLayersThatCannotBeAlignedAreRefused(t *testing.T) {
	base, lab, _ := twoGrids()
	far := *lab
	far.Levels = []loader.Level{lab.Levels[0]}
	far.Levels[0].Translation = []float64{13000, 1e9}
	if _, err := Align(base, &far); err == nil || !strings.Contains(err.Error(), "outside the image along X") {
		t.Errorf("a layer beside the image: %v", err)
	}
	timed := *lab
	timed.Units = []string{"nanometer", "second"}
	if _, err := Align(base, &timed); err == nil || !strings.Contains(err.Error(), "X axis is in second") {
		t.Errorf("a layer in seconds: %v", err)
	}
}

// labelImage is a w×h id image with one square label 7 at [2,6)² and
// label 9 right of it.
func labelImage(w, h int) *image.RGBA {
	ids := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 2; y < 6; y++ {
		for x := 2; x < 9; x++ {
			id := uint32(7)
			if x >= 6 {
				id = 9
			}
			binary.LittleEndian.PutUint32(ids.Pix[y*ids.Stride+4*x:], id)
		}
	}
	return ids
}

func TestLabelOutlinesAndTheSelectedLabel(t *testing.T) {
	ids := labelImage(12, 8)
	grey := func() *image.RGBA {
		img := image.NewRGBA(ids.Rect)
		for i := range img.Pix {
			img.Pix[i] = 40
		}
		return img
	}
	img := grey()
	OverlayLabels(img, ids, LabelStyle{Opacity: 1, Outline: true})
	c7, c9 := LabelColour(7), LabelColour(9)
	for y := 0; y < 8; y++ {
		for x := 0; x < 12; x++ {
			want := [3]uint8{40, 40, 40}
			switch {
			case y < 2 || y >= 6 || x < 2 || x >= 9:
			case x == 2 || x == 5 || y == 2 || y == 5:
				want = c7
				if x >= 6 {
					want = c9
				}
			case x == 6 || x == 8:
				want = c9
			}
			if p := pixel(img, x, y); [3]uint8{p[0], p[1], p[2]} != want {
				t.Errorf("outline (%d,%d) = %v, want %v", x, y, p, want)
			}
		}
	}
	img = grey()
	OverlayLabels(img, ids, LabelStyle{Opacity: 1, Selected: 9})
	if p := pixel(img, 3, 3); p[0] != 40 {
		t.Errorf("label 7 drawn while 9 is selected: %v", p)
	}
	if p := pixel(img, 7, 3); [3]uint8{p[0], p[1], p[2]} != c9 {
		t.Errorf("selected label 9 drawn as %v, want %v", p, c9)
	}
	img = grey()
	pal := make([][3]uint16, 8)
	pal[7] = [3]uint16{0xffff, 0, 0x8080}
	OverlayLabels(img, ids, LabelStyle{Opacity: 1, Palette: pal})
	if p := pixel(img, 3, 3); [3]uint8{p[0], p[1], p[2]} != [3]uint8{255, 0, 128} {
		t.Errorf("label 7 with the file's colour: %v", p)
	}
	if p := pixel(img, 7, 3); [3]uint8{p[0], p[1], p[2]} != c9 {
		t.Errorf("label 9, beyond the file's colours: %v, want %v", p, c9)
	}
	if c7 == c9 || c7 == LabelColour(8) || LabelColour(0) != [3]uint8{} {
		t.Errorf("label colours: 7 %v, 8 %v, 9 %v, 0 %v", c7, LabelColour(8), c9, LabelColour(0))
	}
}

func TestOverlayBlendsOpaquePixelsOnly(t *testing.T) {
	dst := image.NewRGBA(image.Rect(0, 0, 2, 1))
	src := image.NewRGBA(image.Rect(0, 0, 2, 1))
	copy(dst.Pix, []byte{100, 200, 250, 255, 100, 200, 250, 255})
	copy(src.Pix, []byte{200, 100, 50, 255, 200, 100, 50, 0})
	over := image.NewRGBA(dst.Rect)
	copy(over.Pix, dst.Pix)
	Overlay(over, src, 0.25, Over) // a = 64
	if want := []byte{
		uint8((200*64+127)/255 + (100*191+127)/255), uint8((100*64+127)/255 + (200*191+127)/255),
		uint8((50*64+127)/255 + (250*191+127)/255), 255, 100, 200, 250, 255}; string(over.Pix) != string(want) {
		t.Errorf("over: %v, want %v", over.Pix, want)
	}
	add := image.NewRGBA(dst.Rect)
	copy(add.Pix, dst.Pix)
	Overlay(add, src, 0.25, Additive)
	if want := []byte{100 + 50, 200 + 25, 255, 255, 100, 200, 250, 255}; string(add.Pix) != string(want) {
		t.Errorf("additive: %v, want %v", add.Pix, want)
	}
}

func TestALayerIsTransparentWhereItHasNoData(t *testing.T) {
	m := loader.NewMeta("mem", "YX", []int{20, 30}, loader.Uint8, []int{20, 30}, nil, nil)
	p := openPyramid(t, &memSource{meta: m, arrays: [][]byte{makeArray(m.Shape, m.DType, func([]int) float64 { return 200 })}}, levels.Options{})
	v := View{Zoom: 1, Center: Point{15, 10}, Width: 40, Height: 20, Lo: 0, Hi: 255, Channels: []Channel{{C: 0, Lo: 0, Hi: 255, Colormap: "#00ff00"}}}
	var r Renderer
	events, stop := p.Subscribe()
	defer stop()
	for {
		img, info := r.RenderLayer(v, p, 1)
		if !info.Complete {
			<-events
			continue
		}
		if got := pixel(img, 2, 5); got != [4]uint8{} {
			t.Errorf("beside the data: %v, want transparent", got)
		}
		if got := pixel(img, 10, 5); got != [4]uint8{0, 200, 0, 255} {
			t.Errorf("on the data: %v", got)
		}
		break
	}
	// Render, after, draws the background again.
	img, _ := r.Render(v, p, 2)
	if got := pixel(img, 2, 5); got != [4]uint8{background[0], background[1], background[2], 255} {
		t.Errorf("Render after RenderLayer, beside the data: %v", got)
	}
}
