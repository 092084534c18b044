package render

import (
	"image"
	"math"
	"strings"
	"testing"

	"vastview/levels"
	"vastview/loader"
)

// hashByte is a sample value that differs between neighbours on every axis.
func hashByte(pos []int) float64 {
	x := uint32(17)
	for _, p := range pos {
		x = (x ^ uint32(p)) * 2654435761
		x ^= x >> 13
	}
	return float64(x & 0xff)
}

// TestRenderPlanesSampleTheRightData draws every orientation of a TCZYX
// volume with awkward chunks at several zooms and checks each screen pixel
// against the sample nearest-neighbour mapping puts under it: the pixel's
// centre at (x+0.5, y+0.5) maps to plane position centre + (x+0.5-W/2)/zoom
// along columns, and likewise along rows with zoom × aspect.
func TestRenderPlanesSampleTheRightData(t *testing.T) {
	shape := []int{2, 3, 7, 11, 13}
	m := loader.NewMeta("mem", "TCZYX", shape, loader.Uint8, []int{1, 2, 3, 4, 5},
		[]float64{1, 1, 2.5, 1, 1}, nil)
	src := &memSource{meta: m, arrays: [][]byte{makeArray(shape, loader.Uint8, hashByte)}}
	p := openPyramid(t, src, levels.Options{})
	var r Renderer
	for _, o := range []Orientation{XY, XZ, YZ} {
		for _, zoom := range []float64{1, 2.5, 3, 0.75} {
			v := View{Orientation: o, T: 1, C: 2, Z: 4, Y: 6, X: 9, Zoom: zoom,
				Center: Point{5.3, 3.7}, Lo: 0, Hi: 255, Colormap: "gray", Width: 23, Height: 19}
			img, info := renderComplete(t, &r, v, p, 1)
			if info.Level != 0 {
				t.Fatalf("%s zoom %g: level %d", o, zoom, info.Level)
			}
			checkNearest(t, img, v, m, src.arrays[0])
		}
	}
}

// TestRenderFlippedPlanes draws every plane mirrored along its columns,
// its rows and both, and transposed (the display transforms of an
// anatomical volume) and checks each pixel against the sample the
// mapping puts there; ToPlane, ToScreen, Pan, ZoomAbout and Fit follow
// the same mapping.
func TestRenderFlippedPlanes(t *testing.T) {
	shape := []int{7, 11, 13}
	m := loader.NewMeta("mem", "ZYX", shape, loader.Uint8, []int{3, 4, 5}, []float64{2.5, 1, 1}, nil)
	src := &memSource{meta: m, arrays: [][]byte{makeArray(shape, loader.Uint8, hashByte)}}
	p := openPyramid(t, src, levels.Options{})
	var r Renderer
	for _, o := range []Orientation{XY, XZ, YZ} {
		for _, fl := range []Flip{{Col: true}, {Row: true}, {Col: true, Row: true},
			{Swap: true}, {Swap: true, Col: true}, {Swap: true, Row: true}, {Swap: true, Col: true, Row: true}} {
			for _, zoom := range []float64{1, 2.5, 0.75} {
				v := View{Orientation: o, Z: 4, Y: 6, X: 9, Zoom: zoom,
					Center: Point{5.3, 3.7}, Lo: 0, Hi: 255, Colormap: "gray", Width: 23, Height: 19}
				v.Flips[o] = fl
				img, _ := renderComplete(t, &r, v, p, 1)
				checkNearest(t, img, v, m, src.arrays[0])
				pt := v.ToPlane(m, 3.5, 17.5)
				if x, y := v.ToScreen(m, pt); math.Abs(x-3.5) > 1e-9 || math.Abs(y-17.5) > 1e-9 {
					t.Errorf("%s %+v: ToScreen(ToPlane(3.5, 17.5)) = %g, %g", o, fl, x, y)
				}
				left := pt.Col // the plane axis across the screen
				centre := v.Center.Col
				if fl.Swap {
					left, centre = pt.Row, v.Center.Row
				}
				if across := fl.Col && !fl.Swap || fl.Row && fl.Swap; across && !(left > centre) || !across && !(left < centre) {
					t.Errorf("%s %+v: the left of the screen is at %g, the centre at %g", o, fl, left, centre)
				}
				// A drag moves the data with the pointer; a zoom keeps the
				// data under the pointer there.
				pv := v.Pan(m, 4, -3)
				if x, y := pv.ToScreen(m, pt); math.Abs(x-7.5) > 1e-9 || math.Abs(y-14.5) > 1e-9 {
					t.Errorf("%s %+v: after a pan by (4, -3) the point is at %g, %g", o, fl, x, y)
				}
				zv := v.ZoomAbout(m, 3.5, 17.5, 2)
				if got := zv.ToPlane(m, 3.5, 17.5); math.Abs(got.Col-pt.Col) > 1e-9 || math.Abs(got.Row-pt.Row) > 1e-9 {
					t.Errorf("%s %+v: zoom moved the point under the pointer from %v to %v", o, fl, pt, got)
				}
				// Fitted, the whole plane shows and touches two edges.
				fv := v
				fv.Zoom, fv.Center = Fit(m, fv)
				x0, y0 := fv.ToScreen(m, Point{})
				cols, rows := PlaneSize(m, o)
				x1, y1 := fv.ToScreen(m, Point{Col: float64(cols), Row: float64(rows)})
				w, h := math.Abs(x1-x0), math.Abs(y1-y0)
				if w > 23+1e-9 || h > 19+1e-9 || math.Abs(w-23) > 1e-9 && math.Abs(h-19) > 1e-9 {
					t.Errorf("%s %+v: fitted, the plane is %g × %g in 23 × 19", o, fl, w, h)
				}
			}
		}
	}
}

// checkNearest compares every pixel of img with the sample of data (the
// level-0 array of m) that nearest-neighbour sampling puts there, through
// the window [0, 255] in gray.
func checkNearest(t *testing.T, img *image.RGBA, v View, m *loader.Meta, data []byte) {
	t.Helper()
	row, col, _ := v.Orientation.Axes()
	ra, ca := m.AxisIndex(row), m.AxisIndex(col)
	aspect := m.Spacing[ra] / m.Spacing[ca]
	pos := make([]int, len(m.Axes))
	for i := range m.Axes {
		pos[i] = v.At(m.Axes[i])
	}
	bad := 0
	for y := 0; y < v.Height; y++ {
		for x := 0; x < v.Width; x++ {
			sx, sy := float64(x)+0.5-float64(v.Width)/2, float64(y)+0.5-float64(v.Height)/2
			if v.Flip().Swap { // the column axis down the screen, the row axis across
				sx, sy = sy, sx
			}
			if f := v.Flip(); f.Col { // a flipped axis runs against its screen axis
				sx = -sx
			}
			if v.Flip().Row {
				sy = -sy
			}
			c := int(math.Floor(v.Center.Col + sx/v.Zoom))
			r := int(math.Floor(v.Center.Row + sy/(v.Zoom*aspect)))
			want := bgPixel
			if c >= 0 && c < m.Shape[ca] && r >= 0 && r < m.Shape[ra] {
				pos[ra], pos[ca] = r, c
				off := 0
				for i := range pos {
					off = off*m.Shape[i] + pos[i]
				}
				g := data[off]
				want = [4]uint8{g, g, g, 255}
			}
			if got := pixel(img, x, y); got != want {
				if bad++; bad <= 5 {
					t.Errorf("%s zoom %g: pixel (%d,%d) = %v, want %v (sample row %d col %d)",
						v.Orientation, v.Zoom, x, y, got, want, r, c)
				}
			}
		}
	}
}

// halvedMeta is the geometry of a ZYX pyramid whose level k+1 halves the
// axes reduce[k] names, with NGFF scales and translations.
func halvedMeta(shape []int, spacing []float64, reduce ...string) *loader.Meta {
	m := loader.NewMeta("mem", "ZYX", shape, loader.Uint16, []int{1, 256, 256}, spacing, nil)
	f := []float64{1, 1, 1}
	prev := shape
	for _, red := range reduce {
		l := loader.Level{Shape: append([]int(nil), prev...), Chunk: []int{1, 256, 256},
			Scale: make([]float64, 3), Translation: make([]float64, 3)}
		for i := range l.Shape {
			if strings.IndexByte(red, m.Axes[i]) >= 0 {
				l.Shape[i] = (l.Shape[i] + 1) / 2
				f[i] *= 2
			}
			l.Chunk[i] = min(l.Chunk[i], l.Shape[i])
			l.Scale[i] = spacing[i] * f[i]
			l.Translation[i] = (f[i] - 1) / 2 * spacing[i]
		}
		m.Levels = append(m.Levels, l)
		prev = l.Shape
	}
	return m
}

// TestChooseLevel checks the level drawn at each zoom: the coarsest with
// at least one sample per screen pixel on both displayed axes.
func TestChooseLevel(t *testing.T) {
	shape := []int{64, 4096, 4096}
	// Z stops halving after level 2; Y and X go on to level 4.
	check := func(spacing []float64, o Orientation, zoom float64, want int) {
		t.Helper()
		m := halvedMeta(shape, spacing, "ZYX", "ZYX", "YX", "YX")
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		if got := newFrame(View{Orientation: o, Zoom: zoom, Width: 10, Height: 10}, m).level; got != want {
			t.Errorf("spacing %v %s zoom %g: level %d, want %d", spacing, o, zoom, got, want)
		}
	}
	iso := []float64{1, 1, 1}
	for zoom, want := range map[float64]int{4: 0, 1: 0, 0.51: 0, 0.5: 1, 0.3: 1, 0.25: 2, 0.2: 2,
		0.125: 3, 0.0625: 4, 0.001: 4} {
		check(iso, XY, zoom, want)
	}
	check(iso, XZ, 0.25, 2)
	check(iso, XZ, 0.0625, 4)
	// Planes 4 apart: rows are magnified 4 times already at level 0.
	check([]float64{4, 1, 1}, XZ, 0.25, 0)
	check([]float64{4, 1, 1}, XZ, 0.125, 1)
	check([]float64{4, 1, 1}, XY, 0.25, 2)

	// A level that halves only Z is never used for an XY view, whatever
	// the zoom: its planes are averages.
	m := halvedMeta([]int{64, 200, 200}, iso, "Z", "ZYX")
	for zoom, want := range map[float64]int{1: 0, 0.6: 0, 0.5: 2, 0.1: 2} {
		if got := newFrame(View{Zoom: zoom, Width: 10, Height: 10}, m).level; got != want {
			t.Errorf("Z-only level 1, xy zoom %g: level %d, want %d", zoom, got, want)
		}
	}
	// For an XZ view it is the level that halves the rows.
	for zoom, want := range map[float64]int{0.7: 0, 0.5: 1, 0.25: 2} {
		if got := newFrame(View{Orientation: XZ, Zoom: zoom, Width: 10, Height: 10}, m).level; got != want {
			t.Errorf("Z-only level 1, xz zoom %g: level %d, want %d", zoom, got, want)
		}
	}
}

func TestFitAndMapping(t *testing.T) {
	m := loader.NewMeta("mem", "ZYX", []int{10, 300, 400}, loader.Uint16, []int{1, 300, 400},
		[]float64{4, 0.5, 0.5}, []string{"micrometer", "micrometer", "micrometer"})
	m.Levels[0].Translation = []float64{100, 10, 20}
	zoom, c := Fit(m, View{Orientation: XY, Width: 200, Height: 200})
	if zoom != 0.5 || c != (Point{200, 150}) {
		t.Errorf("Fit xy = %g %v, want 0.5 {200 150}", zoom, c)
	}
	// xz: 10 rows of aspect 8 are 80 column-samples high.
	zoom, c = Fit(m, View{Orientation: XZ, Width: 800, Height: 800})
	if zoom != 2 || c != (Point{200, 5}) {
		t.Errorf("Fit xz = %g %v, want 2 {200 5}", zoom, c)
	}
	v := View{Orientation: XZ, Zoom: zoom, Center: c, Width: 800, Height: 800}
	// The top-left corner of the data is at (0, 400-5*16).
	if x, y := v.ToScreen(m, Point{0, 0}); x != 0 || y != 320 {
		t.Errorf("ToScreen(0,0) = %g %g, want 0 320", x, y)
	}
	for _, s := range [][2]float64{{0, 0}, {13.5, 700.25}, {799, 321}} {
		p := v.ToPlane(m, s[0], s[1])
		if x, y := v.ToScreen(m, p); math.Abs(x-s[0]) > 1e-9 || math.Abs(y-s[1]) > 1e-9 {
			t.Errorf("ToScreen(ToPlane(%v)) = %g %g", s, x, y)
		}
	}
	loc := v.Locate(m, 3, 320+16*2+1)
	want := Location{Inside: true, Col: 1, Row: 2, ColAxis: 'X', RowAxis: 'Z',
		ColPhys: 20.5, RowPhys: 108, ColUnit: "micrometer", RowUnit: "micrometer"}
	if loc != want {
		t.Errorf("Locate = %+v\nwant %+v", loc, want)
	}
	if loc := v.Locate(m, 3, 319); loc.Inside {
		t.Errorf("above the data: %+v", loc)
	}
	// Zooming about a point keeps the data under it.
	z := v.ZoomAbout(m, 123, 456, 3)
	if z.Zoom != 6 {
		t.Errorf("zoom %g, want 6", z.Zoom)
	}
	a, b := v.ToPlane(m, 123, 456), z.ToPlane(m, 123, 456)
	if math.Abs(a.Col-b.Col) > 1e-9 || math.Abs(a.Row-b.Row) > 1e-9 {
		t.Errorf("ZoomAbout moved the point: %v -> %v", a, b)
	}
	// A drag moves the data with the pointer.
	d := v.Pan(m, 10, -16)
	if got := d.ToPlane(m, 110, 84); got != v.ToPlane(m, 100, 100) {
		t.Errorf("Pan: %v, want %v", got, v.ToPlane(m, 100, 100))
	}
}
