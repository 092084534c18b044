package session

import (
	"context"
	"math"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/prefs"
	"vastview/render"
)

// plainChannels is twoChannels without anything its file says about them.
func plainChannels() *channelSource {
	src := twoChannels()
	src.meta.Channels = nil
	return src
}

// settled returns f, or if a window of it is still to be chosen, the
// first frame after it with every window chosen.
func (h *harness) settled(f *Frame) *Frame {
	if f.Info.Complete && !f.autoPending() {
		return f
	}
	return h.waitFrame(func(f *Frame) bool { return f.Info.Complete && !f.autoPending() })
}

// checkComposite checks that frame f shows, pixel for pixel, the
// composite PlaneComposite draws of its channels' planes of src.
func checkComposite(t *testing.T, src loader.Source, f *Frame) {
	t.Helper()
	m := src.Meta()
	var planes [][]byte
	var w, h int
	for _, ch := range f.View.Channels {
		buf, pw, ph, err := loader.ReadPlane(context.Background(), src, 0, loader.Plane{Orientation: loader.XY, At: map[byte]int{'C': ch.C, 'Z': f.View.Z}})
		if err != nil {
			t.Fatal(err)
		}
		planes, w, h = append(planes, buf), pw, ph
	}
	ref := render.PlaneComposite(planes, m.DType, w, h, f.View.Channels)
	checked := 0
	for y := 0; y < f.Img.Rect.Dy(); y += 7 {
		for x := 0; x < f.Img.Rect.Dx(); x += 7 {
			p := f.View.ToPlane(m, float64(x)+0.5, float64(y)+0.5)
			col, row := int(math.Floor(p.Col)), int(math.Floor(p.Row))
			if col < 0 || row < 0 || col >= w || row >= h {
				continue
			}
			got, want := f.Img.RGBAAt(x, y), ref.RGBAAt(col, row)
			if got != want {
				t.Fatalf("screen (%d,%d) = %v, want %v (sample %d,%d)", x, y, got, want, col, row)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d pixels over the data", checked)
	}
}

// TestChannelsOpenAsComposite checks data of several channels without
// display metadata: shown as a composite, each channel in a colour of its
// own (green, then magenta) and a window of its own chosen by
// auto-contrast, the picture their sum.
func TestChannelsOpenAsComposite(t *testing.T) {
	h := newHarness(t, Options{})
	src := plainChannels()
	f := h.settled(h.open(src, "/data/two.tif"))
	if len(f.View.Channels) != 2 {
		t.Fatalf("drawn channels %+v, want both", f.View.Channels)
	}
	for i, want := range []string{"#00ff00", "#ff00ff"} {
		ch := f.View.Channels[i]
		if ch.C != i || ch.Colormap != want || !(ch.Hi > ch.Lo) {
			t.Errorf("channel %d drawn as %+v, want %s with a window", i, ch, want)
		}
	}
	checkComposite(t, src, f)
	mode, chans := h.s.Channels()
	if mode != Composite || len(chans) != 2 || !chans[0].Current || !chans[0].Visible || !chans[1].Visible {
		t.Errorf("Channels() = %v %+v", mode, chans)
	}
}

// TestChannelKeys checks the channel keys: Ctrl+2 hides and shows the
// second channel, Down makes it the current one, M goes from composite to
// one channel in colour to one in gray and back.
func TestChannelKeys(t *testing.T) {
	h := newHarness(t, Options{})
	src := twoChannels()
	h.settled(h.open(src, "/data/cells.ome.tif"))
	h.s.PressWith("2", Mods{Ctrl: true})
	f := h.waitFrame(func(f *Frame) bool { return f.Info.Complete && len(f.View.Channels) == 1 })
	if f.View.Channels[0].C != 0 {
		t.Errorf("after Ctrl+2 drawn %+v, want channel 0 alone", f.View.Channels)
	}
	checkComposite(t, src, f)
	h.s.PressWith("2", Mods{Ctrl: true})
	h.waitFrame(func(f *Frame) bool { return f.Info.Complete && len(f.View.Channels) == 2 })
	h.s.Press(KeyDown)
	f = h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.View.C == 1 && len(f.View.Channels) == 2 })
	if _, chans := h.s.Channels(); !chans[1].Current || f.View.Colormap != "#0000ff" {
		t.Errorf("after Down: current %+v, view colormap %s", chans, f.View.Colormap)
	}
	h.s.Rune('m')
	f = h.waitFrame(func(f *Frame) bool { return f.Info.Complete && len(f.View.Channels) == 0 })
	if mode, _ := h.s.Channels(); mode != OneColor || f.View.C != 1 || f.View.Colormap != "#0000ff" {
		t.Errorf("after M: mode %v, drawn channel %d in %s", mode, f.View.C, f.View.Colormap)
	}
	if px := f.Img.RGBAAt(200, 150); px.R != 0 || px.G != 0 {
		t.Errorf("channel 1 alone in blue shows %v", px)
	}
	h.s.Rune('m')
	f = h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.View.Colormap == "gray" })
	if px := f.Img.RGBAAt(200, 150); px.R != px.G || px.G != px.B {
		t.Errorf("gray mode shows %v", px)
	}
	// A colormap chosen in gray mode shows: the channel in colour.
	h.s.SetColormap("fire")
	f = h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.View.Colormap == "fire" })
	if mode, _ := h.s.Channels(); mode != OneColor || f.View.C != 1 {
		t.Errorf("a colormap chosen in gray mode: mode %v, channel %d", mode, f.View.C)
	}
	h.s.SetChannelMode(OneGray)
	h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.View.Colormap == "gray" })
	h.s.SetChannelMode(Composite)
	h.waitFrame(func(f *Frame) bool { return f.Info.Complete && len(f.View.Channels) == 2 })
}

// TestChannelStateIsRemembered checks that a file opened again shows its
// channels as they were left: mode, hidden channels, colours.
func TestChannelStateIsRemembered(t *testing.T) {
	p := prefs.New(&prefs.MapStore{})
	h := newHarness(t, Options{Prefs: p})
	h.open(twoChannels(), "/data/cells.ome.tif")
	h.s.SetChannelVisible(0, false)
	h.s.SetChannelColormap(1, "#ffff00")
	h.waitFrame(func(f *Frame) bool { return len(f.View.Channels) == 1 && f.View.Channels[0].Colormap == "#ffff00" })
	h.s.SetChannelMode(OneColor)
	h.waitFrame(func(f *Frame) bool { return len(f.View.Channels) == 0 })
	h.s.SaveView()

	h2 := newHarness(t, Options{Prefs: p})
	h2.open(twoChannels(), "/data/cells.ome.tif")
	mode, chans := h2.s.Channels()
	if mode != OneColor || chans[0].Visible || !chans[1].Visible || chans[1].Colormap != "#ffff00" {
		t.Errorf("reopened as %v %+v", mode, chans)
	}
}

// TestFileSaysHowChannelsShow checks the file's own channel settings: a
// channel it shows off stays out of the composite; a file in ImageJ's
// grayscale mode opens one channel at a time, in gray; a colour table of
// its own colours its channel.
func TestFileSaysHowChannelsShow(t *testing.T) {
	h := newHarness(t, Options{})
	src := twoChannels()
	src.meta.Channels[1].Hidden = true
	f := h.open(src, "/data/a.tif")
	if len(f.View.Channels) != 1 || f.View.Channels[0].C != 0 {
		t.Errorf("drawn %+v, want channel 0 alone", f.View.Channels)
	}

	src = twoChannels()
	src.meta.ChannelMode = loader.ChannelsGray
	fire := new([256][3]uint8)
	for i := range fire {
		fire[i] = [3]uint8{uint8(i), uint8(i / 2), 0}
	}
	src.meta.Channels[0].LUT = fire
	f = h.open(src, "/data/b.tif")
	if len(f.View.Channels) != 0 || f.View.Colormap != "gray" {
		t.Errorf("grayscale file drawn %+v in %s", f.View.Channels, f.View.Colormap)
	}
	h.s.SetChannelMode(OneColor)
	f = h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.View.Colormap != "gray" })
	cm, err := render.ColormapNamed(f.View.Colormap)
	if err != nil || cm.LUT != *fire {
		t.Errorf("channel 0 drawn with %s (%v), not the file's table", f.View.Colormap, err)
	}
}

// TestParseChannelColour reads colours as users write them, and words
// what is wrong with the others.
func TestParseChannelColour(t *testing.T) {
	for in, want := range map[string]string{"#00FF00": "#00ff00", " ff8000 ": "#ff8000", "Magenta": "#ff00ff", "gray": "#808080"} {
		if got, err := ParseChannelColour(in); err != nil || got != want {
			t.Errorf("ParseChannelColour(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "#12345", "#gg0000", "#1234567", "0x00ff00", "mauve"} {
		if got, err := ParseChannelColour(in); err == nil || !strings.Contains(err.Error(), "#rrggbb") {
			t.Errorf("ParseChannelColour(%q) = %q, %v; want an error naming #rrggbb", in, got, err)
		}
	}
	for _, c := range ChannelColours() {
		if _, err := render.ColormapNamed(c.Colormap); err != nil {
			t.Errorf("colour %s: %v", c.Name, err)
		}
		if hex, ok := render.ColourNames[c.Name]; ok && hex != c.Colormap {
			t.Errorf("colour %s is %s here, %s for plane --colors", c.Name, c.Colormap, hex)
		}
	}
}
