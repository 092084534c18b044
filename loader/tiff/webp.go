package tiff

import (
	"bytes"
	"image"
	"image/color"
	"vastview/loader/internal/ycc"

	"golang.org/x/image/webp"
)

// checkWebP checks that p, WebP-compressed (as GDAL writes it), holds what
// a WebP picture can: 8-bit RGB or RGBA, samples interleaved.
func checkWebP(p *page) error {
	if p.bits != 8 || p.dtype.Size() != 1 || p.spp != 3 && p.spp != 4 || p.planar {
		return unsupported("WebP of %d samples of %d bits", p.spp, p.bits)
	}
	return nil
}

// unWebP decodes the WebP picture raw, block b of p, into out: R, G, B
// (and A, not premultiplied) bytes for each pixel, rows of the block's
// width; what the picture does not cover is zero.
func (s *source) unWebP(p *page, b int, raw, out []byte) error {
	cfg, err := webp.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return blockErr(p, b, "WebP: %v", err)
	}
	if cfg.Width > p.bw || cfg.Height > p.bh {
		return blockErr(p, b, "WebP picture of %dx%d in a block of %dx%d", cfg.Width, cfg.Height, p.bw, p.bh)
	}
	img, err := webp.Decode(bytes.NewReader(raw))
	if err != nil {
		return blockErr(p, b, "WebP: %v", err)
	}
	spp := p.spp
	rows := len(out) / p.rowBytes()
	r := img.Bounds()
	w, h := min(r.Dx(), p.bw), min(r.Dy(), rows)
	if w < p.bw || h < rows {
		clear(out)
	}
	for y := 0; y < h; y++ {
		o := out[y*p.bw*spp:]
		for x := 0; x < w; x++ {
			c := webpPixel(img, r.Min.X+x, r.Min.Y+y)
			o[x*spp], o[x*spp+1], o[x*spp+2] = c.R, c.G, c.B
			if spp == 4 {
				o[x*spp+3] = c.A
			}
		}
	}
	return nil
}

// webpPixel is the pixel at x, y of a decoded WebP picture. A lossy one is
// Y'CbCr of video range (VP8's, BT.601: Y' from 16 to 235) with chroma
// subsampled 2x2, converted here as libwebp converts it by default: chroma
// upsampled by the triangle filter, then to RGB.
// golang.org/x/image/webp leaves it as an image.YCbCr, whose own
// conversion assumes JPEG's full range and repeats chroma samples.
func webpPixel(img image.Image, x, y int) color.NRGBA {
	switch m := img.(type) {
	case *image.NRGBA:
		i := m.PixOffset(x, y)
		return color.NRGBA{m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3]}
	case *image.YCbCr:
		if m.SubsampleRatio == image.YCbCrSubsampleRatio420 {
			cb, cr := fancyChroma(m, x, y)
			r, g, b := ycc.VideoToRGB(m.Y[m.YOffset(x, y)], cb, cr)
			return color.NRGBA{r, g, b, 255}
		}
	case *image.NYCbCrA:
		if m.SubsampleRatio == image.YCbCrSubsampleRatio420 {
			cb, cr := fancyChroma(&m.YCbCr, x, y)
			r, g, b := ycc.VideoToRGB(m.Y[m.YOffset(x, y)], cb, cr)
			return color.NRGBA{r, g, b, m.A[m.AOffset(x, y)]}
		}
	}
	return color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
}

// fancyChroma is the chroma of pixel x, y of m (4:2:0) upsampled by the
// triangle filter: 9/16 of the nearest chroma sample, 3/16 of each of its
// neighbours toward the pixel across and down, 1/16 of the diagonal one
// (the picture's edge repeated).
func fancyChroma(m *image.YCbCr, x, y int) (byte, byte) {
	r := m.Rect
	cx, cy := (x-r.Min.X)/2, (y-r.Min.Y)/2
	cw, ch := (r.Dx()+1)/2, (r.Dy()+1)/2
	nx, ny := cx-1, cy-1
	if (x-r.Min.X)%2 == 1 {
		nx = cx + 1
	}
	if (y-r.Min.Y)%2 == 1 {
		ny = cy + 1
	}
	nx, ny = min(max(nx, 0), cw-1), min(max(ny, 0), ch-1)
	at := func(p []byte, i, j int) int { return int(p[j*m.CStride+i]) }
	mix := func(p []byte) byte {
		return byte((9*at(p, cx, cy) + 3*at(p, nx, cy) + 3*at(p, cx, ny) + at(p, nx, ny) + 8) >> 4)
	}
	return mix(m.Cb), mix(m.Cr)
}
