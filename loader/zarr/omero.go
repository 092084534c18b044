package zarr

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"strings"

	"vastview/loader"
)

// omero is the OME-NGFF "omero" rendering metadata: how a viewer shows
// the channels at first. It only ever changes how the image is shown, so
// a part of it of the wrong JSON type is left out rather than failing the
// image (see UnmarshalJSON).
type omero struct {
	Channels []omeroChannel
	// Model is rdefs.model: "color" (the active channels added, each in
	// its colour) or "greyscale" (one channel in grey).
	Model string
}

// omeroChannel is one entry of omero "channels".
type omeroChannel struct {
	Label  string
	Color  string
	Start  *float64 // window.start
	End    *float64 // window.end
	Active *bool
}

// UnmarshalJSON reads the parts of "omero" the viewer uses, each only
// when it has the JSON type the specification gives it (null is no
// value), and the first maxChannels channels only. It never fails: JSON
// that is not well formed fails the parse of the whole document first.
func (o *omero) UnmarshalJSON(b []byte) error {
	var raw struct {
		Channels json.RawMessage `json:"channels"`
		Rdefs    json.RawMessage `json:"rdefs"`
	}
	*o = omero{}
	if json.Unmarshal(b, &raw) != nil {
		return nil
	}
	var rdefs struct {
		Model json.RawMessage `json:"model"`
	}
	if json.Unmarshal(raw.Rdefs, &rdefs) == nil {
		json.Unmarshal(rdefs.Model, &o.Model)
	}
	for i, c := range firstItems(raw.Channels, maxChannels) {
		o.Channels = append(o.Channels, omeroChannel{})
		var r struct {
			Label, Color, Window, Active json.RawMessage
		}
		if json.Unmarshal(c, &r) != nil {
			continue
		}
		oc := &o.Channels[i]
		json.Unmarshal(r.Label, &oc.Label)
		json.Unmarshal(r.Color, &oc.Color)
		var w struct{ Start, End json.RawMessage }
		if json.Unmarshal(r.Window, &w) == nil {
			oc.Start, oc.End = number(w.Start), number(w.End)
		}
		var active bool
		if given(r.Active) && json.Unmarshal(r.Active, &active) == nil {
			oc.Active = &active
		}
	}
	return nil
}

// firstItems returns the first n items of a JSON list, or none when b is
// not a list; it reads no further, so a list of millions of items costs
// no more than n.
func firstItems(b json.RawMessage, n int) []json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil
	}
	var items []json.RawMessage
	for len(items) < n && dec.More() {
		var it json.RawMessage
		if dec.Decode(&it) != nil {
			return items
		}
		items = append(items, it)
	}
	return items
}

// given reports whether b is a value other than null.
func given(b json.RawMessage) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

// number reads a JSON number, or returns nil.
func number(b json.RawMessage) *float64 {
	var f float64
	if !given(b) || json.Unmarshal(b, &f) != nil {
		return nil
	}
	return &f
}

// imageLabel is the OME-NGFF "image-label" metadata of a label image.
type imageLabel struct {
	Colors []struct {
		Value json.RawMessage `json:"label-value"`
		RGBA  []float64       `json:"rgba"`
	} `json:"colors"`
}

// maxPalette bounds the label values a palette covers.
const maxPalette = 1 << 16

// channels turns omero channels into loader channels: one per position of
// an axis of n positions. Entries the file gets wrong are left without
// the wrong part rather than failing the image.
func (o *omero) channels(n int) []loader.Channel {
	if o == nil || len(o.Channels) == 0 {
		return nil
	}
	out := make([]loader.Channel, n)
	for i := range min(n, len(o.Channels)) {
		c := o.Channels[i]
		out[i].Label = c.Label
		out[i].Color, out[i].HasColor = parseColor(c.Color)
		if c.Start != nil && c.End != nil && finite(*c.Start) && finite(*c.End) {
			out[i].Lo, out[i].Hi, out[i].HasWindow = *c.Start, *c.End, true
		}
		out[i].Hidden = c.Active != nil && !*c.Active
	}
	return out
}

// mode is how rdefs.model says to show the channels (a loader.Channels*
// constant), or "" when it does not say: OMERO's "color" model adds the
// active channels, each in its colour (ImageJ's composite); "greyscale"
// shows one in grey.
func (o *omero) mode() string {
	if o == nil {
		return ""
	}
	switch strings.ToLower(strings.TrimSpace(o.Model)) {
	case "color", "colour":
		return loader.ChannelsComposite
	case "greyscale", "grayscale", "grey", "gray":
		return loader.ChannelsGray
	}
	return ""
}

// parseColor reads a colour "RRGGBB" (optionally with "#" or alpha "AA").
func parseColor(s string) ([3]uint8, bool) {
	s = strings.TrimPrefix(s, "#")
	if len(s) != 6 && len(s) != 8 {
		return [3]uint8{}, false
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return [3]uint8{}, false
	}
	return [3]uint8{b[0], b[1], b[2]}, true
}

// palette maps label values to colours: entry v is the colour of label v
// (black where none is given), up to the largest label value listed that
// is below maxPalette. It returns nil when no colour is usable.
func (l *imageLabel) palette() [][3]uint16 {
	if l == nil {
		return nil
	}
	type entry struct {
		v   int
		rgb [3]uint16
	}
	var es []entry
	top := -1
	for _, c := range l.Colors {
		var v float64
		if json.Unmarshal(c.Value, &v) != nil || v < 0 || v >= maxPalette || v != math.Trunc(v) || len(c.RGBA) < 3 {
			continue
		}
		e := entry{v: int(v)}
		for k := range 3 {
			e.rgb[k] = uint16(min(max(c.RGBA[k], 0), 255)) * 0x101
		}
		es = append(es, e)
		top = max(top, e.v)
	}
	if top < 0 {
		return nil
	}
	pal := make([][3]uint16, top+1)
	for _, e := range es {
		pal[e.v] = e.rgb
	}
	return pal
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
