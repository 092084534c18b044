package render

import (
	"encoding/binary"
	"image"
	"math"
	"sync/atomic"

	"vastview/loader"
)

// Blending is how a layer's colours combine with the picture under it.
type Blending uint8

// The blendings, as napari's "translucent" and "additive".
const (
	Over     Blending = iota // the layer's colour at its opacity over the picture
	Additive                 // the layer's colour times its opacity, added, clamped
)

// String is the blending's name, "over" or "additive".
func (b Blending) String() string {
	if b == Additive {
		return "additive"
	}
	return "over"
}

// ParseBlending reads "over" or "additive" ("" is over).
func ParseBlending(s string) (Blending, bool) {
	switch s {
	case "", "over":
		return Over, true
	case "additive", "add":
		return Additive, true
	}
	return Over, false
}

// LabelStyle is how a label layer is drawn over the picture.
type LabelStyle struct {
	// Opacity of the labels' colours, 0..1.
	Opacity float64
	// Outline draws only the pixels of each label next to another label
	// (or none), in screen pixels.
	Outline bool
	// Selected, when not 0, is the only label drawn.
	Selected uint32
	// Palette, when the file gives its labels colours (OME-Zarr
	// image-label colors), is the colour of each label value below its
	// length; others get LabelColour's.
	Palette [][3]uint16
}

// LabelColour is the colour label id is drawn in when its file gives
// none: the glasbey colormap's entry 1+(id-1) mod 255, stable from run to
// run and far from its neighbours' (id 0 has none: it is transparent).
func LabelColour(id uint32) [3]uint8 {
	return colormaps["glasbey"].LUT[labelIndex(float64(id))]
}

// RenderLayer is Render for a picture laid over another: where the layer
// has no data (outside it, or nothing in memory yet) its pixels are
// transparent (alpha 0); elsewhere they are opaque.
func (r *Renderer) RenderLayer(v View, p Source, gen uint64) (*image.RGBA, Info) {
	r.clear = true
	defer func() { r.clear = false }()
	return r.Render(v, p, gen)
}

// RenderLabels draws the label ids of view v of p instead of colours:
// each pixel's four bytes hold the id under it as a little-endian
// uint32 (the low 32 bits of wider values, fractions dropped), 0 where
// there is no data. Missing chunks are drawn from coarser levels and
// requested as Render does.
func (r *Renderer) RenderLabels(v View, p Source, gen uint64) (*image.RGBA, Info) {
	r.ids = true
	defer func() { r.ids = false }()
	v.Channels, v.Colormap = nil, "glasbey"
	return r.Render(v, p, gen)
}

// idRow writes the ids of the samples of row at the byte offsets cols.
func (r *Renderer) idRow(dst, row []byte, cols []int) {
	le := binary.LittleEndian
	dst = dst[:4*len(cols)]
	switch dt := r.f.m.DType; dt {
	case loader.Uint8:
		for i, o := range cols {
			le.PutUint32(dst[4*i:], uint32(row[o]))
		}
	case loader.Int8:
		for i, o := range cols {
			le.PutUint32(dst[4*i:], uint32(int32(int8(row[o]))))
		}
	case loader.Uint16:
		for i, o := range cols {
			le.PutUint32(dst[4*i:], uint32(le.Uint16(row[o:])))
		}
	case loader.Int16:
		for i, o := range cols {
			le.PutUint32(dst[4*i:], uint32(int32(int16(le.Uint16(row[o:])))))
		}
	case loader.Uint32, loader.Int32:
		for i, o := range cols {
			le.PutUint32(dst[4*i:], le.Uint32(row[o:]))
		}
	default:
		for i, o := range cols {
			le.PutUint32(dst[4*i:], LabelKey(row[o:], dt, 0))
		}
	}
}

// LabelKey is the 32-bit id an id image (RenderLabels) holds for sample i
// of buf, of type dt: the id itself from 0 to 2^32-1 (a negative id of a
// narrower type as its two's complement), the integer part of a float;
// any other 64-bit id folds to a key from 2^31 up that is never 0, is the same
// for the same id in every run, and gives the id its own colour
// (LabelColour of the key is the glasbey entry 1+(id-1) mod 255, as the
// picture draws the id).
func LabelKey(buf []byte, dt loader.DType, i int) uint32 {
	if dt.Float() {
		return labelID(Sample(buf, dt, i))
	}
	b := dt.Bits(buf, i)
	if b < 1<<32 || dt.Signed() && dt != loader.Int64 {
		return uint32(b)
	}
	const q0 = 1<<31/255 + 1         // the first multiple of 255 from 2^31 up
	const q = (1<<32-1)/255 - q0 - 1 // how many fit below 2^32 with room for an entry
	h := b * 0x9E3779B97F4A7C15      // a multiplicative hash of the 64 bits
	h ^= h >> 29
	return uint32(labelIndexBits(b, dt.Signed())) + 255*uint32(q0+(h>>32)%q)
}

// labelID is the id of a label stored as a floating-point value.
func labelID(v float64) uint32 {
	if !(v > -9e18 && v < 9e18) {
		return 0
	}
	return uint32(int64(math.Floor(v)))
}

// alphaTables returns, for opacity a (0..255), x -> round(x*a/255) and
// x -> round(x*(255-a)/255).
func alphaTables(a int) (on, under [256]uint8) {
	for x := range 256 {
		on[x] = uint8((x*a + 127) / 255)
		under[x] = uint8((x*(255-a) + 127) / 255)
	}
	return on, under
}

// opacity8 is an opacity 0..1 as 0..255.
func opacity8(o float64) int {
	if !(o > 0) {
		return 0
	}
	return int(min(1, o)*255 + 0.5)
}

// Overlay lays src, a layer as RenderLayer drew it, over dst (the same
// size) at opacity 0..1: where src is opaque, each primary becomes
// round(src*a/255) + round(dst*(255-a)/255) with blending Over, or
// min(255, dst + round(src*a/255)) with Additive, a being the opacity
// times 255, rounded.
func Overlay(dst, src *image.RGBA, opacity float64, b Blending) {
	a := opacity8(opacity)
	if a == 0 {
		return
	}
	on, under := alphaTables(a)
	d, s := dst.Pix, src.Pix[:len(dst.Pix)]
	for i := 0; i+3 < len(d); i += 4 {
		if s[i+3] == 0 {
			continue
		}
		for k := i; k < i+3; k++ {
			if b == Additive {
				d[k] = uint8(min(255, int(d[k])+int(on[s[k]])))
			} else {
				d[k] = on[s[k]] + under[d[k]]
			}
		}
	}
}

// OverlayLabels colours the ids RenderLabels drew and lays them over dst
// (the same size) as Overlay does with blending Over: label 0 is
// transparent, every other label its colour (LabelStyle.Palette, else
// LabelColour); with Outline only its pixels with a 4-neighbour of
// another id; with Selected only that label.
func OverlayLabels(dst, ids *image.RGBA, st LabelStyle) {
	a := opacity8(st.Opacity)
	if a == 0 {
		return
	}
	on, under := alphaTables(a)
	var cycle [256][3]uint8 // glasbey's colours at the opacity
	lut := &colormaps["glasbey"].LUT
	for e := range cycle {
		for k := range 3 {
			cycle[e][k] = on[lut[e][k]]
		}
	}
	var own [][3]uint8 // the file's colours at the opacity
	if len(st.Palette) > 0 {
		own = make([][3]uint8, len(st.Palette))
		for v, c := range st.Palette {
			for k := range 3 {
				own[v][k] = on[c[k]>>8]
			}
		}
	}
	le := binary.LittleEndian
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	if !st.Outline && st.Selected == 0 {
		fillLabels(dst, ids, w, h, &cycle, own, &under)
		return
	}
	var last uint32 // the label of the pixel before, whose colour is c
	c := cycle[0]
	for y := range h {
		row := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		cur := ids.Pix[y*ids.Stride : y*ids.Stride+4*w]
		var up, down []byte
		if y > 0 {
			up = ids.Pix[(y-1)*ids.Stride:]
		}
		if y+1 < h {
			down = ids.Pix[(y+1)*ids.Stride:]
		}
		for x := 0; x < w; x++ {
			v := le.Uint32(cur[4*x:])
			if v == 0 || st.Selected != 0 && v != st.Selected {
				continue
			}
			if st.Outline && !(x > 0 && le.Uint32(cur[4*x-4:]) != v || x+1 < w && le.Uint32(cur[4*x+4:]) != v ||
				up != nil && le.Uint32(up[4*x:]) != v || down != nil && le.Uint32(down[4*x:]) != v) {
				continue
			}
			if v != last {
				last = v
				if int64(v) < int64(len(own)) {
					c = own[v]
				} else {
					c = cycle[1+(v-1)%255]
				}
			}
			p := row[4*x : 4*x+3]
			p[0], p[1], p[2] = c[0]+under[p[0]], c[1]+under[p[1]], c[2]+under[p[2]]
		}
	}
}

// fillLabels blends every labelled pixel of dst (a non-zero id in ids)
// with its label's colour, already scaled by the opacity (cycle, or own
// for the ids it covers), the pixel kept at under: run by run of equal
// ids, the label's colour looked up once a run, and red and green of a
// pixel scaled together by one look-up in a table of pairs.
func fillLabels(dst, ids *image.RGBA, w, h int, cycle *[256][3]uint8, own [][3]uint8, under *[256]uint8) {
	pair := underPairs(under)
	le := binary.LittleEndian
	for y := range h {
		row := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		cur := ids.Pix[y*ids.Stride : y*ids.Stride+4*w]
		for x := 0; x < w; {
			v := le.Uint32(cur[4*x:])
			e := x + 1
			for e < w && le.Uint32(cur[4*e:]) == v {
				e++
			}
			if v != 0 {
				var c [3]uint8
				if int64(v) < int64(len(own)) {
					c = own[v]
				} else {
					c = cycle[1+(v-1)%255]
				}
				cw := uint32(c[0]) | uint32(c[1])<<8 | uint32(c[2])<<16
				seg := row[4*x : 4*e]
				for len(seg) >= 4 {
					p := le.Uint32(seg)
					q := uint32(pair[uint16(p)]) | uint32(under[uint8(p>>16)])<<16
					le.PutUint32(seg, cw+q|p&0xff000000)
					seg = seg[4:]
				}
			}
			x = e
		}
	}
}

// pairTable is the table of pairs of underPairs, for one table under.
type pairTable struct {
	under [256]uint8
	pair  [65536]uint16
}

// lastPairs is the table of pairs last made: a layer drawn frame after
// frame at one opacity makes it once.
var lastPairs atomic.Pointer[pairTable]

// underPairs returns the table that maps two bytes b0 | b1<<8 to
// under[b0] | under[b1]<<8, made again only when under changes.
func underPairs(under *[256]uint8) *[65536]uint16 {
	if t := lastPairs.Load(); t != nil && t.under == *under {
		return &t.pair
	}
	t := &pairTable{under: *under}
	for i := range t.pair {
		t.pair[i] = uint16(under[i&0xff]) | uint16(under[i>>8])<<8
	}
	lastPairs.Store(t)
	return &t.pair
}
