package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/loader/demo"
	"vastview/prefs"
	"vastview/render"
)

func TestKeysStepThroughPlanesAndTime(t *testing.T) {
	h := newHarness(t, Options{})
	f := h.open(small(), "/data/volume.tif")
	if f.View.Z != 4 {
		t.Fatalf("opened at z %d, want the middle plane 4", f.View.Z)
	}
	for range 3 {
		h.s.Press(KeyPeriod)
	}
	h.s.Press(KeyRightBracket)
	f = h.waitFrame(func(f *Frame) bool { return f.View.Z == 7 && f.View.T == 1 && f.Info.Complete })
	if f.Img.Bounds().Dx() != 400 || f.Img.Bounds().Dy() != 300 {
		t.Errorf("frame %v for a viewport of 400×300", f.Img.Bounds())
	}
	h.s.KeyDown(KeyShiftLeft)
	h.s.Press(KeyLeft) // 10 back: clamped to 0
	h.s.KeyUp(KeyShiftLeft)
	h.waitFrame(func(f *Frame) bool { return f.View.Z == 0 })
	h.s.Press(KeyEnd)
	h.waitFrame(func(f *Frame) bool { return f.View.Z == 8 })
	h.s.Press(KeyPageUp)
	h.waitFrame(func(f *Frame) bool { return f.View.Z == 7 })
	if got := h.s.AxisLabel('Z'); got != "z 8/9" {
		t.Errorf("z read-out %q", got)
	}
	if keys := h.eventsNamed("key"); len(keys) != 7 {
		t.Errorf("%d key events traced, want 7", len(keys))
	}
}

func TestWheelZoomAndDrag(t *testing.T) {
	h := newHarness(t, Options{})
	before := h.open(small(), "/data/volume.tif").View
	h.s.Scroll(10, 10, -10) // wheel down: next plane
	h.waitFrame(func(f *Frame) bool { return f.View.Z == before.Z+1 })
	m := h.s.Meta()
	under := h.s.View().ToPlane(m, 50, 40)
	h.s.KeyDown(KeyControlLeft)
	h.s.Scroll(50, 40, 10) // Ctrl+wheel up: zoom in about (50, 40)
	h.s.KeyUp(KeyControlLeft)
	after := h.s.View()
	if !(after.Zoom > before.Zoom) {
		t.Errorf("zoom %g after zooming in from %g", after.Zoom, before.Zoom)
	}
	if p := after.ToPlane(m, 50, 40); abs(p.Col-under.Col) > 1e-9 || abs(p.Row-under.Row) > 1e-9 {
		t.Errorf("the point under the pointer moved from %v to %v", under, p)
	}
	h.s.Pan(20, -10)
	dragged := h.s.View()
	if dx := (after.Center.Col - dragged.Center.Col) * after.Zoom; abs(dx-20) > 1e-9 {
		t.Errorf("a drag of 20 pixels moved the centre by %g pixels", dx)
	}
	h.waitFrame(func(f *Frame) bool { return f.View.Center == dragged.Center })
	h.s.Rune('+')
	if z := h.s.View().Zoom; abs(z-dragged.Zoom*zoomStep) > 1e-9 {
		t.Errorf("+ zoomed to %g from %g", z, dragged.Zoom)
	}
	h.s.Rune('-')
	h.s.Rune('0')
	h.waitFrame(func(f *Frame) bool { return abs(f.View.Zoom-before.Zoom) < 1e-9 })
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// TestViewRestoredAcrossSessionsByCanonicalName moves the view, closes the
// session (as quitting does) and opens the file again under a relative
// name in a new session: the view comes back, and the recent list holds
// the file once, by its absolute path.
func TestViewRestoredAcrossSessionsByCanonicalName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	abs := filepath.Join(dir, "volume.tif")
	store := &prefs.MapStore{}
	h := newHarness(t, Options{Prefs: prefs.New(store)})
	h.open(small(), abs)
	h.s.Press(KeyHome)
	h.s.Press(KeyPeriod)
	h.s.Rune('2') // XZ
	h.s.SetColormap("magma")
	h.s.SetWindow(100, 20000)
	saved := h.s.View()
	h.s.Close() // File → Quit, or the window closed

	h2 := newHarness(t, Options{Prefs: prefs.New(store)})
	h2.open(small(), "volume.tif")
	got := h2.s.View()
	if got.Orientation != render.XZ || got.Z != saved.Z || got.Colormap != "magma" || got.Lo != 100 || got.Hi != 20000 {
		t.Errorf("reopened with %+v, saved %+v", got, saved)
	}
	h2.open(small(), "./other.tif")
	h2.open(small(), abs)
	if r := h2.s.Recent(); len(r) != 2 || r[0] != abs || r[1] != filepath.Join(dir, "other.tif") {
		t.Errorf("recent files %v", r)
	}
}

func TestModifiersResetAfterADialog(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(small(), "/data/volume.tif")
	h.s.Press(KeyHome)
	h.s.KeyDown(KeyControlLeft)
	if c := h.s.PressWith(KeyS, h.s.Modifiers()); c != SaveView {
		t.Fatalf("Ctrl+S gave %q", c)
	}
	// The dialog took the release of Ctrl; the window tells the session.
	h.s.ResetModifiers()
	h.s.Press(KeyPeriod)
	if z := h.s.View().Z; z != 1 {
		t.Errorf("after the dialog, . moved to z %d, want 1", z)
	}
	h.s.Scroll(10, 10, 10) // a plain wheel steps, it does not zoom
	if v := h.s.View(); v.Z != 0 {
		t.Errorf("the wheel after the dialog: z %d zoom %g", v.Z, v.Zoom)
	}
}

// channelSource is a demo volume with two channels that its file names
// and colours.
type channelSource struct {
	*demo.Source
	meta loader.Meta
}

func (s *channelSource) Meta() *loader.Meta { return &s.meta }
func (s *channelSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	// Channel c is the demo's time point c.
	return s.Source.ReadChunk(ctx, level, idx, dst)
}

func twoChannels() *channelSource {
	d := demo.NewSized(2, 3, 64, 96)
	src := &channelSource{Source: d, meta: *d.Meta()}
	src.meta.Axes = "CZYX"
	src.meta.Units = []string{"", "micrometer", "micrometer", "micrometer"}
	src.meta.Synthetic = false
	src.meta.Channels = []loader.Channel{
		{Label: "GFP", Color: [3]uint8{0, 255, 0}, HasColor: true, Lo: 100, Hi: 20000, HasWindow: true},
		{Label: "DAPI", Color: [3]uint8{0, 0, 255}, HasColor: true},
	}
	return src
}

func TestEachChannelKeepsItsWindowAndColour(t *testing.T) {
	h := newHarness(t, Options{})
	f := h.open(twoChannels(), "/data/cells.ome.tif")
	if f.View.Colormap != "#00ff00" || f.View.Lo != 100 || f.View.Hi != 20000 {
		t.Fatalf("channel 0 shown as %s [%g, %g], want the file's #00ff00 [100, 20000]", f.View.Colormap, f.View.Lo, f.View.Hi)
	}
	if got := h.s.AxisLabel('C'); got != "c 1/2  GFP" {
		t.Errorf("channel read-out %q", got)
	}
	h.s.SetWindow(500, 600)
	h.s.SetAt('C', 1)
	f = h.waitFrame(func(f *Frame) bool { return f.View.C == 1 && f.Info.Complete && f.View.Lo != f.View.Hi })
	if f.View.Colormap != "#0000ff" || f.View.Lo == 500 {
		t.Errorf("channel 1 shown as %s [%g, %g], want its own colour and window", f.View.Colormap, f.View.Lo, f.View.Hi)
	}
	if got := h.s.ChannelName(); got != "DAPI" {
		t.Errorf("channel name %q", got)
	}
	h.s.SetColormap("fire")
	h.s.SetAt('C', 0)
	if v := h.s.View(); v.Lo != 500 || v.Hi != 600 || v.Colormap != "#00ff00" {
		t.Errorf("back on channel 0: %s [%g, %g], want #00ff00 [500, 600]", v.Colormap, v.Lo, v.Hi)
	}
	h.s.SetAt('C', 1)
	if v := h.s.View(); v.Colormap != "fire" {
		t.Errorf("back on channel 1: colormap %s, want fire", v.Colormap)
	}
}

// rgbSource is a 3×32×48 colour image: red 200, green 100, blue 0.
type rgbSource struct{ meta *loader.Meta }

func (s *rgbSource) Meta() *loader.Meta { return s.meta }
func (s *rgbSource) Close() error       { return nil }
func (s *rgbSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	v := [3]byte{200, 100, 0}[idx[0]]
	for i := range dst {
		dst[i] = v
	}
	return nil
}

func TestColourPicturesHaveNoChannelSliderAndHoverShowsRGB(t *testing.T) {
	h := newHarness(t, Options{})
	m := loader.NewMeta("mem", "CYX", []int{3, 32, 48}, loader.Uint8, []int{1, 32, 48}, nil, nil)
	m.RGB = true
	f := h.open(&rgbSource{meta: m}, "/data/photo.png")
	p := f.Img.Pix[4*(150*400+200):]
	if p[0] != 200 || p[1] != 100 || p[2] != 0 {
		t.Errorf("centre pixel %v, want 200 100 0", p[:3])
	}
	if f.View.Colormap != render.RGB || f.View.Lo != 0 || f.View.Hi != 255 {
		t.Errorf("view %s [%g, %g], want rgb [0, 255]", f.View.Colormap, f.View.Lo, f.View.Hi)
	}
	if axes := h.s.Axes(); len(axes) != 0 {
		t.Errorf("sliders for axes %q on a colour picture", axes)
	}
	h.s.Hover(200, 150, true)
	if got := h.s.HoverText(); !strings.HasSuffix(got, "R 200 G 100 B 0") {
		t.Errorf("hover shows %q", got)
	}
}

func TestHoverShowsEveryAxis(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(twoChannels(), "/data/cells.ome.tif")
	h.s.Hover(200, 150, true)
	// A composite: each channel's value, by name.
	got := h.s.HoverText()
	for _, want := range []string{"X ", "Y ", "Z 1", "µm", "GFP ", "DAPI "} {
		if !strings.Contains(got, want) {
			t.Errorf("hover %q lacks %q", got, want)
		}
	}
	// One channel at a time: its position on C, and its value.
	h.s.SetChannelMode(OneGray)
	h.waitFrame(func(f *Frame) bool { return len(f.View.Channels) == 0 && f.Info.Complete })
	got = h.s.HoverText()
	for _, want := range []string{"X ", "Y ", "Z 1", "C 0 (GFP)", "µm", "value "} {
		if !strings.Contains(got, want) {
			t.Errorf("hover %q lacks %q", got, want)
		}
	}
	h.s.Hover(0, 0, false)
	if got := h.s.HoverText(); got != "" {
		t.Errorf("hover outside the picture: %q", got)
	}
}

func TestOpenCanBeCancelled(t *testing.T) {
	started := make(chan struct{})
	h := newHarness(t, Options{Open: func(ctx context.Context, path string) (loader.Source, error) {
		close(started)
		<-ctx.Done() // a server that never answers
		return nil, ctx.Err()
	}})
	h.open(small(), "/data/volume.tif")
	h.s.Open("https://example.org/slow.ome.zarr")
	<-started
	if p, ok := h.s.Opening(); !ok || p != "https://example.org/slow.ome.zarr" {
		t.Errorf("opening %q %v", p, ok)
	}
	h.s.CancelOpen()
	h.waitUpdate(func(u Update) bool {
		_, still := h.s.Opening()
		return u.Changes&OpeningChanged != 0 && !still
	})
	if d := h.s.Data(); d == nil || d.Name != "/data/volume.tif" {
		t.Errorf("the data shown changed to %v", d)
	}
}

func TestOpenErrorIsAProblemAndKeepsTheData(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(junk, []byte("not an image"), 0o644)
	h := newHarness(t, Options{})
	h.open(small(), "/data/volume.tif")
	h.s.Open(junk)
	u := h.waitUpdate(func(u Update) bool { return len(u.Problems) > 0 })
	if p := u.Problems[0]; p.Subject != "notes.txt" || !errors.Is(p.Err, loader.ErrFormat) {
		t.Errorf("problem %+v", p)
	}
	if d := h.s.Data(); d.Name != "/data/volume.tif" {
		t.Errorf("data %q shown after a failed open", d.Name)
	}
	if evs := h.eventsNamed("error"); len(evs) != 1 || !strings.Contains(evs[0]["message"].(string), "notes.txt") {
		t.Errorf("error events %v", evs)
	}
}

// TestAFittedViewRefitsWhenTheViewportChanges shrinks the viewport (as the
// sliders of newly opened data do): a fitted view fits again, a zoomed
// one keeps its zoom.
func TestAFittedViewRefitsWhenTheViewportChanges(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(small(), "/data/volume.tif")
	want, _ := render.Fit(h.s.Meta(), render.View{Orientation: render.XY, Width: 400, Height: 200})
	h.s.Resize(400, 200)
	f := h.waitFrame(func(f *Frame) bool { return f.View.Height == 200 })
	if abs(f.View.Zoom-want) > 1e-9 {
		t.Errorf("fitted view at zoom %g after the resize, want %g", f.View.Zoom, want)
	}
	h.s.Rune('+')
	zoomed := h.s.View().Zoom
	h.s.Resize(400, 300)
	if z := h.s.View().Zoom; z != zoomed {
		t.Errorf("a zoomed view changed zoom from %g to %g on a resize", zoomed, z)
	}
}
