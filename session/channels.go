package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"vastview/loader"
	"vastview/prefs"
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

// channelSet is the channels part: how each channel of the data shown is
// shown and in which mode. Its state is the session's, under the
// session's lock; it is handed the view, whose channel, window and
// colormap are the current channel's.
type channelSet struct {
	list []channelState
	mode ChannelMode
}

// reset shows the channels of m as they are first shown.
func (cs *channelSet) reset(m *loader.Meta) { cs.list, cs.mode = initialChannels(m) }

// multi reports whether there are several channels and not the samples
// of colour pixels (rgb): the channel modes apply.
func (cs *channelSet) multi(rgb bool) bool { return len(cs.list) > 1 && !rgb }

// index is the channel state channel c uses.
func (cs *channelSet) index(c int) int {
	if len(cs.list) <= 1 {
		return 0
	}
	return clampInt(c, 0, len(cs.list)-1)
}

// load shows v's channel as its state says.
func (cs *channelSet) load(v *render.View) {
	if len(cs.list) == 0 {
		return
	}
	st := cs.list[cs.index(v.C)]
	v.Lo, v.Hi, v.Colormap = st.lo, st.hi, st.colormap
}

// keep stores v's window and colormap as its channel's.
func (cs *channelSet) keep(v render.View) {
	if len(cs.list) == 0 {
		return
	}
	st := &cs.list[cs.index(v.C)]
	st.auto = v.Lo == v.Hi || st.auto && st.lo == v.Lo && st.hi == v.Hi
	st.lo, st.hi, st.colormap = v.Lo, v.Hi, v.Colormap
}

// autoAgain has the channels whose window auto-contrast chose choose it
// again (for other data shown in this view).
func (cs *channelSet) autoAgain() {
	for i := range cs.list {
		if cs.list[i].auto {
			cs.list[i].lo, cs.list[i].hi = 0, 0
		}
	}
}

// forget has every channel's window chosen again by auto-contrast.
func (cs *channelSet) forget() {
	for i := range cs.list {
		cs.list[i].lo, cs.list[i].hi = 0, 0
	}
}

// composite is v drawn as the composite of the visible channels (black
// when none is), v's own channel as v has it.
func (cs *channelSet) composite(v render.View) render.View {
	cs.keep(v)
	chans := make([]render.Channel, 0, len(cs.list))
	for c, st := range cs.list {
		if !st.hidden {
			chans = append(chans, render.Channel{C: c, Lo: st.lo, Hi: st.hi, Colormap: st.colormap})
		}
	}
	if len(chans) == 0 {
		chans = append(chans, render.Channel{C: v.C, Lo: 0, Hi: 1, Colormap: "#000000"})
	}
	v.Channels = chans
	return v
}

// adopt takes the windows the drawer chose by auto-contrast in frame f
// for the channels still without one, v's (the view's) among them, and
// for those whose window auto-contrast chose from an earlier frame of
// the same view: a redraw as the rest of the view arrives chooses again,
// and the window the view keeps is the one on screen. It reports whether
// it took any.
func (cs *channelSet) adopt(v *render.View, f *Frame) bool {
	if len(cs.list) == 0 {
		return false
	}
	took := false
	again := func(st *channelState, lo, hi float64) bool {
		return f.auto && st.auto && (st.lo != lo || st.hi != hi)
	}
	if st := &cs.list[cs.index(v.C)]; f.View.Lo != f.View.Hi && (v.Lo == v.Hi ||
		st.lo == v.Lo && st.hi == v.Hi && again(st, f.View.Lo, f.View.Hi)) {
		v.Lo, v.Hi = f.View.Lo, f.View.Hi
		cs.keep(*v)
		cs.list[cs.index(v.C)].auto = true
		took = true
	}
	for _, ch := range f.View.Channels {
		if ch.C < 0 || ch.C >= len(cs.list) || ch.C == cs.index(v.C) {
			continue
		}
		if st := &cs.list[ch.C]; ch.Lo != ch.Hi && (st.lo == st.hi || again(st, ch.Lo, ch.Hi)) {
			st.lo, st.hi, st.auto = ch.Lo, ch.Hi, true
			took = true
		}
	}
	return took
}

// infos are the channels of m as the channel list shows them, cur the
// current one.
func (cs *channelSet) infos(m *loader.Meta, cur int) []ChannelInfo {
	out := make([]ChannelInfo, len(cs.list))
	for c, st := range cs.list {
		out[c] = ChannelInfo{Name: channelName(m, c), Colormap: st.colormap, Lo: st.lo, Hi: st.hi,
			Visible: !st.hidden, Current: c == cs.index(cur)}
	}
	return out
}

// save puts the channels in the remembered view v (the mode too when
// multi).
func (cs *channelSet) save(v *prefs.View, multi bool) {
	for _, c := range cs.list {
		v.Channels = append(v.Channels, prefs.ChannelView{Lo: c.lo, Hi: c.hi, Colormap: c.colormap, Hidden: c.hidden})
	}
	if multi {
		v.Mode = cs.mode.String()
	}
}

// restore takes the channels of remembered view p, cur the view's
// channel.
func (cs *channelSet) restore(p prefs.View, cur int) {
	if len(p.Channels) == len(cs.list) {
		for i, c := range p.Channels {
			if c.Colormap == render.RGB || validColormap(c.Colormap) {
				cs.list[i] = channelState{lo: c.Lo, hi: c.Hi, colormap: c.Colormap, hidden: c.Hidden}
			}
		}
	} else if len(cs.list) > 0 && validColormap(p.Colormap) {
		cs.list[cs.index(cur)] = channelState{lo: p.Lo, hi: p.Hi, colormap: p.Colormap}
	}
	if m, ok := ParseChannelMode(p.Mode); ok {
		cs.mode = m
	}
}

// multiChannelLocked reports whether the data shown has several channels
// (not the samples of colour pixels): the channel modes apply.
func (s *Session) multiChannelLocked() bool {
	return s.data != nil && s.chans.multi(s.data.Pyr.Meta().RGB)
}

// drawnViewLocked is the view as the drawer is asked for it: of several
// channels in composite mode, every visible channel (black when none is);
// in gray mode, the current channel in gray.
func (s *Session) drawnViewLocked() render.View {
	v := s.view
	if !s.multiChannelLocked() {
		return v
	}
	switch s.chans.mode {
	case OneGray:
		v.Colormap = "gray"
	case Composite:
		v = s.chans.composite(v)
	}
	return v
}

// channelIndex is the channel state the view's channel uses.
func (s *Session) channelIndex() int { return s.chans.index(s.view.C) }

// loadChannelLocked shows the view's channel as its state says.
func (s *Session) loadChannelLocked() { s.chans.load(&s.view) }

// keepChannelLocked stores the view's window and colormap as its
// channel's.
func (s *Session) keepChannelLocked() { s.chans.keep(s.view) }

// autoAgainLocked has the channels whose window auto-contrast chose
// choose it again (for other data shown in this view).
func (s *Session) autoAgainLocked() { s.chans.autoAgain() }

// adoptWindowsLocked takes the windows the drawer chose by auto-contrast
// for the channels still without one; it reports whether it took any.
func (s *Session) adoptWindowsLocked(f *Frame) bool { return s.chans.adopt(&s.view, f) }

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
		return s.chans.mode, nil
	}
	s.keepChannelLocked()
	return s.chans.mode, s.chans.infos(s.data.Pyr.Meta(), s.view.C)
}

// SetChannelMode shows the channels in mode m.
func (s *Session) SetChannelMode(m ChannelMode) {
	s.update(func(*loader.Meta) bool {
		if !s.multiChannelLocked() || s.chans.mode == m {
			return false
		}
		s.chans.mode = m
		return true
	})
}

// CycleChannelMode goes from composite to colour to gray and round.
func (s *Session) CycleChannelMode() {
	s.mu.Lock()
	next := (s.chans.mode + 1) % 3
	s.mu.Unlock()
	s.SetChannelMode(next)
}

// SetChannelVisible shows or hides channel c in the composite.
func (s *Session) SetChannelVisible(c int, visible bool) {
	s.update(func(*loader.Meta) bool {
		if !s.multiChannelLocked() || c < 0 || c >= len(s.chans.list) || s.chans.list[c].hidden == !visible {
			return false
		}
		s.chans.list[c].hidden = !visible
		return true
	})
}

// ToggleChannel shows channel c in the composite if it is hidden, else
// hides it; in the one-channel modes it makes c the channel shown.
func (s *Session) ToggleChannel(c int) {
	s.mu.Lock()
	if !s.multiChannelLocked() || c < 0 || c >= len(s.chans.list) {
		s.mu.Unlock()
		return
	}
	mode, hidden := s.chans.mode, s.chans.list[c].hidden
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
	n, c := len(s.chans.list), s.channelIndex()
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
		if _, err := render.ColormapNamed(name); err != nil || c < 0 || c >= len(s.chans.list) {
			return false
		}
		if c == s.channelIndex() {
			if s.view.Colormap == name {
				return false
			}
			s.view.Colormap = name
			return true
		}
		if s.chans.list[c].colormap == name {
			return false
		}
		s.chans.list[c].colormap = name
		return true
	})
}
