// Package ycc converts Y'CbCr pictures, as the JPEG, TIFF and DICOM
// readers decode them, to RGB the way the programs people compare with
// do: chroma upsampled as libjpeg's "fancy" upsampling does, and the
// conversion formulas computed in floating point and rounded.
package ycc

import "image"

// Chroma returns the Cb and Cr planes of m at full resolution, rows cs
// apart. Chroma halved across (4:2:2) or across and down (4:2:0) is
// interpolated as libjpeg's "fancy" upsampling does, 3/4 of the nearer
// sample and 1/4 of the further one with its rounding, so that pixels
// match libjpeg's (and libtiff's) decoding; other ratios repeat samples.
func Chroma(m *image.YCbCr) (cb, cr []byte, cs int) {
	r := m.Rect
	w, h := r.Dx(), r.Dy()
	vs := 0
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio444:
		return m.Cb[m.COffset(r.Min.X, r.Min.Y):], m.Cr[m.COffset(r.Min.X, r.Min.Y):], m.CStride
	case image.YCbCrSubsampleRatio422:
		vs = 1
	case image.YCbCrSubsampleRatio420:
		vs = 2
	}
	cb, cr = make([]byte, w*h), make([]byte, w*h)
	for _, pl := range []struct{ in, out []byte }{{m.Cb, cb}, {m.Cr, cr}} {
		if vs == 0 || w < 2 {
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					pl.out[y*w+x] = pl.in[m.COffset(r.Min.X+x, r.Min.Y+y)]
				}
			}
			continue
		}
		upsample(pl.out, pl.in[m.COffset(r.Min.X, r.Min.Y):], m.CStride, w, h, vs)
	}
	return cb, cr, w
}

// upsample fills out (w x h) from the plane in (rows st apart) of half the
// width, and half the height if vs is 2, as libjpeg's h2v1 and h2v2 fancy
// upsampling: columns (and rows) beyond the plane's edge repeat the edge.
func upsample(out, in []byte, st, w, h, vs int) {
	cw, ch := (w+1)/2, (h+vs-1)/vs
	sum := make([]int, cw+2) // column sums, with the edges repeated
	for y := 0; y < h; y++ {
		cy := y / vs
		near := in[cy*st:]
		for x := 0; x < cw; x++ {
			sum[x+1] = int(near[x])
		}
		add, r0, r1 := 1, 1, 2 // rounding of h2v1: (3a + b + 1 or 2) / 4
		if vs == 2 {
			fy := cy - 1 + 2*(y%2)
			fy = max(0, min(fy, ch-1))
			far := in[fy*st:]
			for x := 0; x < cw; x++ {
				sum[x+1] = 3*sum[x+1] + int(far[x])
			}
			add, r0, r1 = 2, 8, 7 // h2v2: (3a + b + 8 or 7) / 16
		}
		sum[0], sum[cw+1] = sum[1], sum[cw]
		o := out[y*w : (y+1)*w]
		for x := 0; x < cw; x++ {
			c := 3 * sum[x+1]
			o[2*x] = byte((c + sum[x] + r0) >> (2 * add))
			if 2*x+1 < w {
				o[2*x+1] = byte((c + sum[x+2] + r1) >> (2 * add))
			}
		}
	}
}

// ToRGB converts full-range Y'CbCr (JPEG's JFIF, TIFF's default, DICOM's
// YBR_FULL) to R'G'B' by the BT.601 formula with its coefficients 0.299,
// 0.587, 0.114, each rounded to nearest and clamped.
func ToRGB(y, cb, cr byte) (byte, byte, byte) {
	return convert(float64(y), float64(cb)-128, float64(cr)-128)
}

// VideoToRGB converts Y'CbCr of video range (Y' from 16 to 235, chroma
// from 16 to 240: VP8's, BT.601's studio swing) to R'G'B', rounded and
// clamped.
func VideoToRGB(y, cb, cr byte) (byte, byte, byte) {
	return convert(255.0/219*(float64(y)-16), 255.0/224*(float64(cb)-128), 255.0/224*(float64(cr)-128))
}

func convert(y, cb, cr float64) (byte, byte, byte) {
	const kr, kb = 0.299, 0.114
	r := y + 2*(1-kr)*cr
	b := y + 2*(1-kb)*cb
	g := (y - kr*r - kb*b) / (1 - kr - kb)
	return Clamp(r), Clamp(g), Clamp(b)
}

// Clamp rounds v to the nearest byte value, clamped to 0..255.
func Clamp(v float64) byte {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return byte(v + 0.5)
}
