package tiff

import (
	"math"

	"vastview/loader"
)

// maxChannels bounds the channels that get display settings, so that a
// description claiming billions of channels allocates nothing.
const maxChannels = 4096

// imagejChannels returns the display settings ImageJ's metadata on page 0
// gives its channels (one entry when the stack has no C axis), or nil when
// it gives none:
//   - Label: the slice label of the channel's first image (images go C
//     fastest, then Z, then T), for hyperstacks of several channels only
//     (the label of a single channel's first image names a slice);
//   - Lo, Hi: the channel's display range (IJMetadata "rang"); for a single
//     channel without one, the description's min= and max=;
//   - Color, LUT: the channel's colour table (IJMetadata "luts"; for a
//     single channel without one, a ColorMap on a page that is not a
//     palette image, where ImageJ keeps the table of 16- and 32-bit
//     images), see setLUT.
//
// Pages of several samples (RGB) get none.
func (f *file) imagejChannels(p0 *page, ij imagejInfo) []loader.Channel {
	n := ij.channels
	if p0.spp != 1 || n > maxChannels {
		return nil
	}
	md := f.ijMeta(p0, n)
	out := make([]loader.Channel, n)
	said := false
	for c := range out {
		ch := &out[c]
		if n > 1 && c < len(md.labels) {
			ch.Label = md.labels[c]
		}
		if 2*c+1 < len(md.ranges) {
			setWindow(ch, md.ranges[2*c], md.ranges[2*c+1])
		}
		if c < len(md.luts) && md.luts[c] != nil {
			setLUT(ch, md.luts[c])
		}
		if n == 1 {
			f.singleChannel(ch, p0, ij)
		}
		said = said || *ch != (loader.Channel{})
	}
	if !said {
		return nil
	}
	return out
}

// singleChannel fills in what ImageJ keeps outside IJMetadata for an image
// of one channel: the description's display range and the ColorMap of a
// page that is not a palette image.
func (f *file) singleChannel(ch *loader.Channel, p0 *page, ij imagejInfo) {
	if !ch.HasWindow && ij.hasMin && ij.hasMax {
		setWindow(ch, ij.min, ij.max)
	}
	if ch.LUT == nil && !ch.HasColor && p0.photometric != 3 {
		if l := f.colorMapLUT(p0.colormap); l != nil {
			setLUT(ch, l)
		}
	}
}

// setWindow sets ch's display window from a range that is finite.
func setWindow(ch *loader.Channel, lo, hi float64) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return
	}
	ch.Lo, ch.Hi, ch.HasWindow = lo, hi, true
}

// setLUT gives ch a colour table: a ramp from black to one colour (each
// entry i within 1 of colour*i/255, as ImageJ's "Green" or "Magenta") is
// that colour, with no table of its own; any other table is kept, and the
// colour is its brightest entry (the largest sum of red, green and blue;
// the last of equals).
func setLUT(ch *loader.Channel, l *[256][3]uint8) {
	if c, ok := rampColor(l); ok {
		ch.Color, ch.HasColor, ch.LUT = c, true, nil
		return
	}
	best := 0
	for i, e := range l {
		if sum(e) >= sum(l[best]) {
			best = i
		}
	}
	ch.Color, ch.HasColor, ch.LUT = l[best], true, l
}

// rampColor reports whether l runs linearly from black to its last entry,
// and returns that entry.
func rampColor(l *[256][3]uint8) ([3]uint8, bool) {
	c := l[255]
	for i, e := range l {
		for k := range 3 {
			want := (int(c[k])*i + 127) / 255
			if d := int(e[k]) - want; d < -1 || d > 1 {
				return c, false
			}
		}
	}
	return c, true
}

func sum(e [3]uint8) int { return int(e[0]) + int(e[1]) + int(e[2]) }

// colorMapLUT reads a ColorMap of 3 x 256 SHORT values (all reds, then
// greens, then blues) as a colour table of 8-bit entries: the high bytes,
// as ImageJ writes and reads them, or the values themselves when none
// exceeds 255. It returns nil when e is absent or not such a map.
func (f *file) colorMapLUT(e entry) *[256][3]uint8 {
	if e.tag == 0 || e.typ != tShort || e.count != 768 || !f.check(e) {
		return nil
	}
	shift := uint64(0)
	for i := uint64(0); i < 768; i++ {
		if f.uintAt(e, i) > 255 {
			shift = 8
			break
		}
	}
	var l [256][3]uint8
	for i := range l {
		for k := range 3 {
			l[i][k] = uint8(f.uintAt(e, uint64(k*256+i)) >> shift)
		}
	}
	return &l
}
