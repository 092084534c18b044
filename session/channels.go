package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"vastview/loader"
	"vastview/render"
)

// ChannelMode is how the channels of multi-channel data are shown: Fiji's
// three modes.
type ChannelMode uint8

// The channel modes.
const (
	Composite ChannelMode = iota // every visible channel in its colour, added
	OneColor                     // the current channel alone, in its colour
	OneGray                      // the current channel alone, in gray
)

// String is the mode's name: "composite", "color" or "grayscale", as
// ImageJ writes them.
func (m ChannelMode) String() string {
	switch m {
	case OneColor:
		return loader.ChannelsColor
	case OneGray:
		return loader.ChannelsGray
	}
	return loader.ChannelsComposite
}

// ParseChannelMode reads a mode's name.
func ParseChannelMode(s string) (ChannelMode, bool) {
	for _, m := range []ChannelMode{Composite, OneColor, OneGray} {
		if s == m.String() {
			return m, true
		}
	}
	return Composite, false
}

// channelState is how one channel is shown: its display window (lo == hi:
// auto-contrast, still to choose) and colormap; auto says the window was
// chosen by auto-contrast rather than set; hidden, that the channel is
// left out of the composite.
type channelState struct {
	lo, hi   float64
	colormap string
	auto     bool
	hidden   bool
}

// ChannelColour is a colour offered for a channel: its name and its
// colormap (a ramp from black to it, see render.ColormapNamed).
type ChannelColour struct{ Name, Colormap string }

// palette holds the colours offered for channels: first those the
// channels of a file that gives none take in turn (distinct, and the
// first two apart for the colour-blind), then gray.
var palette = []ChannelColour{
	{"green", "#00ff00"}, {"magenta", "#ff00ff"}, {"cyan", "#00ffff"}, {"yellow", "#ffff00"},
	{"red", "#ff0000"}, {"blue", "#0000ff"}, {"orange", "#ff8000"}, {"white", "#ffffff"},
	{"gray", "#808080"},
}

// channelColours are the colormaps of the channels of a file that gives
// none, in turn.
var channelColours = func() []string {
	var out []string
	for _, c := range palette[:8] {
		out = append(out, c.Colormap)
	}
	return out
}()

// ChannelColours lists the colours offered for a channel, in the order
// channels without a colour of their own take them. The slice is the
// caller's; it is safe for concurrent use.
func ChannelColours() []ChannelColour { return slices.Clone(palette) }

// ParseChannelColour reads a channel's colour as a user writes it:
// "#rrggbb", "rrggbb" (either case) or a name ChannelColours gives; it
// returns the colormap (lower-case "#rrggbb"), or an error that says what
// is wrong with s. It is safe for concurrent use.
func ParseChannelColour(s string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, c := range palette {
		if t == c.Name {
			return c.Colormap, nil
		}
	}
	if t == "" {
		return "", errors.New("no colour: write #rrggbb, six hexadecimal digits")
	}
	c, ok := render.ParseColor(t)
	if !ok {
		return "", fmt.Errorf("%q is not a colour: write #rrggbb, six hexadecimal digits (#00ff00 is green)", strings.TrimSpace(s))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2]), nil
}

// initialChannels is how the channels of m are first shown, and in which
// mode: colour pixels as one RGB picture over the type's range, label
// images in label colours, other channels in the colour, window and
// visibility their file gives, else (several channels) in a colour each
// or (one) in gray, with auto-contrast; several channels as a composite
// unless the file says otherwise.
func initialChannels(m *loader.Meta) ([]channelState, ChannelMode) {
	n := m.Size('C')
	if m.RGB {
		n = 1
	}
	cs := make([]channelState, n)
	for c := range cs {
		cs[c].colormap = "gray"
		switch {
		case m.RGB:
			cs[c].colormap = render.RGB
			cs[c].lo, cs[c].hi, _ = render.RGBWindow(m.DType)
			continue
		case m.Label:
			cs[c].colormap = "glasbey"
			continue
		case n > 1:
			cs[c].colormap = channelColours[c%len(channelColours)]
		}
		if c >= len(m.Channels) {
			continue
		}
		ch := m.Channels[c]
		switch {
		case ch.LUT != nil:
			cs[c].colormap = render.TableColormap(ch.LUT)
		case ch.HasColor:
			cs[c].colormap = fmt.Sprintf("#%02x%02x%02x", ch.Color[0], ch.Color[1], ch.Color[2])
		}
		if ch.HasWindow && ch.Lo < ch.Hi {
			cs[c].lo, cs[c].hi = ch.Lo, ch.Hi
		}
		cs[c].hidden = ch.Hidden
	}
	mode := Composite
	switch m.ChannelMode {
	case loader.ChannelsColor:
		mode = OneColor
	case loader.ChannelsGray:
		mode = OneGray
	}
	return cs, mode
}

// DefaultChannels is how the viewer first shows the channels of m: each
// channel's colormap and window (Lo == Hi: for auto-contrast to choose),
// whether it is in the composite, and the mode. Colour pixels are one
// channel, of the rgb colormap.
func DefaultChannels(m *loader.Meta) ([]render.Channel, []bool, ChannelMode) {
	cs, mode := initialChannels(m)
	chans, visible := make([]render.Channel, len(cs)), make([]bool, len(cs))
	for c, st := range cs {
		chans[c] = render.Channel{C: c, Lo: st.lo, Hi: st.hi, Colormap: st.colormap}
		visible[c] = !st.hidden
	}
	return chans, visible, mode
}

// multiChannelLocked reports whether the data shown has several channels
// (not the samples of colour pixels): the channel modes apply.
func (s *Session) multiChannelLocked() bool {
	return s.data != nil && len(s.chans) > 1 && !s.data.Pyr.Meta().RGB
}

// drawnViewLocked is the view as the drawer is asked for it: of several
// channels in composite mode, every visible channel (black when none is);
// in gray mode, the current channel in gray.
func (s *Session) drawnViewLocked() render.View {
	v := s.view
	if !s.multiChannelLocked() {
		return v
	}
	switch s.mode {
	case OneGray:
		v.Colormap = "gray"
	case Composite:
		s.keepChannelLocked()
		chans := make([]render.Channel, 0, len(s.chans))
		for c, cs := range s.chans {
			if !cs.hidden {
				chans = append(chans, render.Channel{C: c, Lo: cs.lo, Hi: cs.hi, Colormap: cs.colormap})
			}
		}
		if len(chans) == 0 {
			chans = append(chans, render.Channel{C: v.C, Lo: 0, Hi: 1, Colormap: "#000000"})
		}
		v.Channels = chans
	}
	return v
}

// channelIndex is the channel state the view's channel uses.
func (s *Session) channelIndex() int {
	if len(s.chans) <= 1 {
		return 0
	}
	return clampInt(s.view.C, 0, len(s.chans)-1)
}

// loadChannelLocked shows the view's channel as its state says.
func (s *Session) loadChannelLocked() {
	if len(s.chans) == 0 {
		return
	}
	cs := s.chans[s.channelIndex()]
	s.view.Lo, s.view.Hi, s.view.Colormap = cs.lo, cs.hi, cs.colormap
}

// keepChannelLocked stores the view's window and colormap as its
// channel's.
func (s *Session) keepChannelLocked() {
	if len(s.chans) == 0 {
		return
	}
	cs := &s.chans[s.channelIndex()]
	cs.auto = s.view.Lo == s.view.Hi || cs.auto && cs.lo == s.view.Lo && cs.hi == s.view.Hi
	cs.lo, cs.hi, cs.colormap = s.view.Lo, s.view.Hi, s.view.Colormap
}

// autoAgainLocked has the channels whose window auto-contrast chose
// choose it again (for other data shown in this view).
func (s *Session) autoAgainLocked() {
	for i := range s.chans {
		if s.chans[i].auto {
			s.chans[i].lo, s.chans[i].hi = 0, 0
		}
	}
}

// adoptWindowsLocked takes the windows the drawer chose by auto-contrast
// for the channels still without one; it reports whether it took any.
func (s *Session) adoptWindowsLocked(f *Frame) bool {
	took := false
	if s.view.Lo == s.view.Hi && f.View.Lo != f.View.Hi {
		s.view.Lo, s.view.Hi = f.View.Lo, f.View.Hi
		s.keepChannelLocked()
		s.chans[s.channelIndex()].auto = true
		took = true
	}
	for _, ch := range f.View.Channels {
		if ch.C < 0 || ch.C >= len(s.chans) || ch.C == s.channelIndex() {
			continue
		}
		if cs := &s.chans[ch.C]; cs.lo == cs.hi && ch.Lo != ch.Hi {
			cs.lo, cs.hi, cs.auto = ch.Lo, ch.Hi, true
			took = true
		}
	}
	return took
}

func channelName(m *loader.Meta, c int) string {
	if m.RGB || c < 0 || c >= len(m.Channels) {
		return ""
	}
	return m.Channels[c].Label
}

// ChannelInfo is how one channel of the data shown is shown.
type ChannelInfo struct {
	Name     string // the file's name for it, or ""
	Colormap string
	Lo, Hi   float64 // its window (equal while auto-contrast is to choose it)
	Visible  bool    // in the composite
	Current  bool    // the channel the contrast panel and the keys work on
}

// Channels returns the mode and the channels of the data shown; none for
// data of one channel or colour pixels.
func (s *Session) Channels() (ChannelMode, []ChannelInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.multiChannelLocked() {
		return s.mode, nil
	}
	s.keepChannelLocked()
	m := s.data.Pyr.Meta()
	out := make([]ChannelInfo, len(s.chans))
	for c, cs := range s.chans {
		out[c] = ChannelInfo{Name: channelName(m, c), Colormap: cs.colormap, Lo: cs.lo, Hi: cs.hi,
			Visible: !cs.hidden, Current: c == s.channelIndex()}
	}
	return s.mode, out
}

// SetChannelMode shows the channels in mode m.
func (s *Session) SetChannelMode(m ChannelMode) {
	s.update(func(*loader.Meta) bool {
		if !s.multiChannelLocked() || s.mode == m {
			return false
		}
		s.mode = m
		return true
	})
}

// CycleChannelMode goes from composite to colour to gray and round.
func (s *Session) CycleChannelMode() {
	s.mu.Lock()
	next := (s.mode + 1) % 3
	s.mu.Unlock()
	s.SetChannelMode(next)
}

// SetChannelVisible shows or hides channel c in the composite.
func (s *Session) SetChannelVisible(c int, visible bool) {
	s.update(func(*loader.Meta) bool {
		if !s.multiChannelLocked() || c < 0 || c >= len(s.chans) || s.chans[c].hidden == !visible {
			return false
		}
		s.chans[c].hidden = !visible
		return true
	})
}

// ToggleChannel shows channel c in the composite if it is hidden, else
// hides it; in the one-channel modes it makes c the channel shown.
func (s *Session) ToggleChannel(c int) {
	s.mu.Lock()
	if !s.multiChannelLocked() || c < 0 || c >= len(s.chans) {
		s.mu.Unlock()
		return
	}
	mode, hidden := s.mode, s.chans[c].hidden
	s.mu.Unlock()
	if mode != Composite {
		s.SetAt('C', c)
		return
	}
	s.SetChannelVisible(c, hidden)
}

// StepChannel makes the channel d places on (wrapping round) the current
// one.
func (s *Session) StepChannel(d int) {
	s.mu.Lock()
	n, c := len(s.chans), s.channelIndex()
	multi := s.multiChannelLocked()
	s.mu.Unlock()
	if multi {
		s.SetAt('C', ((c+d)%n+n)%n)
	}
}

// SetChannelColormap sets the colormap of channel c (see
// render.ColormapNamed).
func (s *Session) SetChannelColormap(c int, name string) {
	s.update(func(*loader.Meta) bool {
		if _, err := render.ColormapNamed(name); err != nil || c < 0 || c >= len(s.chans) {
			return false
		}
		if c == s.channelIndex() {
			if s.view.Colormap == name {
				return false
			}
			s.view.Colormap = name
			return true
		}
		if s.chans[c].colormap == name {
			return false
		}
		s.chans[c].colormap = name
		return true
	})
}
