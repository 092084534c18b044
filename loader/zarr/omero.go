package zarr

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"strings"

	"vastview/loader"
)

// omero is the OME-NGFF "omero" rendering metadata.
type omero struct {
	Channels []struct {
		Label  string          `json:"label"`
		Color  json.RawMessage `json:"color"`
		Window *struct {
			Start *float64 `json:"start"`
			End   *float64 `json:"end"`
		} `json:"window"`
	} `json:"channels"`
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
		var s string
		if json.Unmarshal(c.Color, &s) == nil {
			out[i].Color, out[i].HasColor = parseColor(s)
		}
		if w := c.Window; w != nil && w.Start != nil && w.End != nil && finite(*w.Start) && finite(*w.End) {
			out[i].Lo, out[i].Hi, out[i].HasWindow = *w.Start, *w.End, true
		}
	}
	return out
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
