package tiff

import (
	"bytes"
	"image"
	"image/jpeg"
	"vastview/loader/internal/ycc"
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
		cb, cr, cs := ycc.Chroma(m)
		for y := 0; y < h; y++ {
			o := out[y*p.bw*3:]
			yrow := m.Y[m.YOffset(r.Min.X, r.Min.Y+y):]
			for x := 0; x < w; x++ {
				yy, u, v := yrow[x], cb[y*cs+x], cr[y*cs+x]
				if p.photometric == 6 {
					yy, u, v = ycc.ToRGB(yy, u, v)
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

// yccToRGB converts pixels of Y, Cb, Cr bytes in b to R, G, B in place.
func yccToRGB(b []byte) {
	for i := 0; i+2 < len(b); i += 3 {
		b[i], b[i+1], b[i+2] = ycc.ToRGB(b[i], b[i+1], b[i+2])
	}
}
