package sequence

import (
	"image/color"
)

// leastBytes is ceil(n*bits/per) without overflow (n < 2^62, bits <= 64),
// capped at 2^62: the bytes n samples of bits each need at best when one
// byte of the file holds at most per bits of them.
func leastBytes(n, bits, per uint64) int64 {
	if n > (1<<62)/max(bits, 1) {
		return 1 << 62
	}
	return int64((n*bits + per - 1) / per)
}

// paletteLayout decides what the indices of a palette image become: gray
// samples when every entry is a gray (c 1), else red, green and blue (c 3,
// rgb). A palette that is the gray ramp of its bit depth (see rampBits)
// keeps the indices themselves, as a gray image of that depth does.
func paletteLayout(pal [][3]uint8, bits int) (c int, rgb bool, depth int) {
	if !grayPalette(pal) {
		return 3, true, 0
	}
	return 1, false, rampBits(pal, bits)
}

// grayPalette reports whether every entry of pal is a gray.
func grayPalette(pal [][3]uint8) bool {
	for _, e := range pal {
		if e[0] != e[1] || e[1] != e[2] {
			return false
		}
	}
	return true
}

// rampBits returns bits (1, 2 or 4) if pal's entries are the grays a gray
// image of that bit depth stands for, i*255/(2^bits-1) for entry i, and 0
// otherwise.
func rampBits(pal [][3]uint8, bits int) int {
	if bits != 1 && bits != 2 && bits != 4 || len(pal) > 1<<bits {
		return 0
	}
	step := 255 / (1<<bits - 1)
	for i, e := range pal {
		if int(e[0]) != i*step {
			return 0
		}
	}
	return bits
}

// rgbOf returns the colours of a decoded palette without the
// premultiplication color.Color.RGBA applies to translucent entries: the
// colour stored, whatever its alpha.
func rgbOf(p color.Palette) [][3]uint8 {
	out := make([][3]uint8, len(p))
	for i, c := range p {
		switch c := c.(type) {
		case color.NRGBA:
			out[i] = [3]uint8{c.R, c.G, c.B}
		case color.RGBA:
			out[i] = [3]uint8{c.R, c.G, c.B}
			if c.A != 0xff {
				n := color.NRGBAModel.Convert(c).(color.NRGBA)
				out[i] = [3]uint8{n.R, n.G, n.B}
			}
		default:
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			out[i] = [3]uint8{n.R, n.G, n.B}
		}
	}
	return out
}

// lut maps the 256 possible indices to the samples of c planes (1: gray,
// 3: red, green, blue); indices past the palette are black. Gray samples
// of a ramp of depth bits become the indices' values.
type lut [256][3]uint8

// newLUT builds the lookup table of a palette.
func newLUT(pal [][3]uint8, depth int) *lut {
	var t lut
	div := uint8(1)
	if depth > 0 {
		div = uint8(255 / (1<<depth - 1))
	}
	for i := range min(len(pal), 256) {
		t[i] = [3]uint8{pal[i][0] / div, pal[i][1] / div, pal[i][2] / div}
	}
	return &t
}
