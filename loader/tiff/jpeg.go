package tiff

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
)

// maxJPEGTables bounds the JPEGTables tag (quantization and Huffman tables
// take a few hundred bytes).
const maxJPEGTables = 1 << 20

// unJPEG decodes block b of p, a JPEG stream (compression 7), into out:
// rows of p.bw pixels of p.blockSamples() bytes. The page's JPEGTables, a
// stream of tables only (SOI ... EOI), are spliced before the block's
// stream. YCbCr is converted to RGB as JPEG (JFIF) defines it; RGB and
// gray are kept as the stream holds them. A stream smaller than the block
// leaves the rest zero.
func (s *source) unJPEG(p *page, b int, raw, out []byte) error {
	stream := raw
	if t := p.jpegTables; t.tag != 0 && t.count >= 4 {
		tab := s.f.b[t.pos : t.pos+int64(t.count)]
		if tab[0] != 0xff || tab[1] != 0xd8 || tab[len(tab)-2] != 0xff || tab[len(tab)-1] != 0xd9 {
			return formatErr("JPEGTables of IFD at offset %d are not a JPEG stream", p.ifd)
		}
		if len(raw) >= 2 && raw[0] == 0xff && raw[1] == 0xd8 {
			stream = make([]byte, 0, len(tab)+len(raw)-4)
			stream = append(append(stream, tab[:len(tab)-2]...), raw[2:]...)
		}
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(stream))
	if err != nil {
		return blockErr(p, b, "JPEG: %v", err)
	}
	if cfg.Width > p.bw || cfg.Height > p.bh {
		return blockErr(p, b, "JPEG image of %dx%d in a block of %dx%d", cfg.Width, cfg.Height, p.bw, p.bh)
	}
	img, err := jpeg.Decode(bytes.NewReader(stream))
	if err != nil {
		return blockErr(p, b, "JPEG: %v", err)
	}
	spp := p.blockSamples()
	rows := len(out) / p.rowBytes()
	r := img.Bounds()
	w, h := min(r.Dx(), p.bw), min(r.Dy(), rows)
	if w < p.bw || h < rows {
		clear(out)
	}
	switch m := img.(type) {
	case *image.Gray:
		if spp != 1 {
			return blockErr(p, b, "gray JPEG for %d samples", spp)
		}
		for y := 0; y < h; y++ {
			copy(out[y*p.bw:y*p.bw+w], m.Pix[y*m.Stride:])
		}
	case *image.YCbCr:
		if spp != 3 {
			return blockErr(p, b, "colour JPEG for %d samples", spp)
		}
		cb, cr, cs := chroma(m)
		for y := 0; y < h; y++ {
			o := out[y*p.bw*3:]
			yrow := m.Y[m.YOffset(r.Min.X, r.Min.Y+y):]
			for x := 0; x < w; x++ {
				yy, u, v := yrow[x], cb[y*cs+x], cr[y*cs+x]
				if p.photometric == 6 {
					yy, u, v = color.YCbCrToRGB(yy, u, v)
				}
				o[3*x], o[3*x+1], o[3*x+2] = yy, u, v
			}
		}
	case *image.RGBA:
		if spp != 3 {
			return blockErr(p, b, "colour JPEG for %d samples", spp)
		}
		for y := 0; y < h; y++ {
			o, in := out[y*p.bw*3:], m.Pix[y*m.Stride:]
			for x := 0; x < w; x++ {
				o[3*x], o[3*x+1], o[3*x+2] = in[4*x], in[4*x+1], in[4*x+2]
			}
		}
	case *image.CMYK:
		return unsupported("CMYK JPEG")
	default:
		return unsupported("JPEG decoded as %T", img)
	}
	return nil
}

// chroma returns the Cb and Cr planes of m at full resolution, rows cs
// apart. Chroma halved across (4:2:2) or across and down (4:2:0) is
// interpolated as libjpeg's "fancy" upsampling does, 3/4 of the nearer
// sample and 1/4 of the further one with its rounding, so that pixels
// match libjpeg's (and libtiff's) decoding; other ratios repeat samples.
func chroma(m *image.YCbCr) (cb, cr []byte, cs int) {
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

// yccToRGB converts pixels of Y, Cb, Cr bytes in b to R, G, B in place by
// the TIFF 6.0 formula with its default coefficients (those of JPEG: 0.299,
// 0.587, 0.114) and full-range codes, each rounded to nearest.
func yccToRGB(b []byte) {
	const kr, kb = 0.299, 0.114
	const kg = 1 - kr - kb
	for i := 0; i+2 < len(b); i += 3 {
		y, cb, cr := float64(b[i]), float64(b[i+1])-128, float64(b[i+2])-128
		r := y + 2*(1-kr)*cr
		bl := y + 2*(1-kb)*cb
		g := (y - kr*r - kb*bl) / kg
		b[i], b[i+1], b[i+2] = clampByte(r), clampByte(g), clampByte(bl)
	}
}

// clampByte rounds v to the nearest byte value, clamped to 0..255.
func clampByte(v float64) byte {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return byte(v + 0.5)
}
