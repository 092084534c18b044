package sequence

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/bmp"

	"vastview/loader"
)

// mismatchError reports a frame whose header disagrees with the first
// frame's; the caller names both files.
type mismatchError struct{ got, want frameInfo }

func (e *mismatchError) Error() string {
	return fmt.Sprintf("%v, but the first frame is %v", &e.got, &e.want)
}

// decodeFrame decodes a PNG, JPEG or BMP picture held in data into dst
// (planar, little-endian) after checking that its header matches want.
func decodeFrame(data []byte, want *frameInfo, dst []byte) error {
	info, err := parseHeader(data)
	if err != nil {
		return err
	}
	if err := info.fits(int64(len(data))); err != nil {
		return err
	}
	if !info.same(want) {
		return &mismatchError{got: info, want: *want}
	}
	if len(dst) != info.bytes() {
		return fmt.Errorf("buffer of %d bytes for a %d-byte frame", len(dst), info.bytes())
	}
	img, err := decodeImage(info.kind, data)
	if err != nil {
		return err
	}
	if b := img.Bounds(); b.Min != (image.Point{}) || b.Dx() != info.w || b.Dy() != info.h {
		return fmt.Errorf("decoded %v, header says %dx%d", b, info.w, info.h)
	}
	return toPlanar(img, info.c, info.depth, dst)
}

// decodeImage decodes a whole PNG, JPEG or BMP file. Errors start with
// the format's name.
func decodeImage(k kind, data []byte) (image.Image, error) {
	r := bytes.NewReader(data)
	var img image.Image
	var err error
	switch k {
	case kindPNG:
		img, err = png.Decode(r)
	case kindJPEG:
		img, err = jpeg.Decode(r)
	case kindBMP:
		img, err = bmp.Decode(r)
	default:
		return nil, errNotImage
	}
	if err != nil {
		return nil, formatError(k, "image data", err)
	}
	return img, nil
}

// unscale turns gray samples that image/png scaled from depth bits to 8
// back into the values stored (0 and 1 for one bit).
func unscale(dst []byte, depth int) {
	div := byte(255 / (1<<depth - 1))
	for i, v := range dst {
		dst[i] = v / div
	}
}

// toPlanar copies a decoded image's samples into dst as c planes of
// little-endian samples: gray (c 1), or red, green and blue (c 3). Alpha is
// dropped: the colour stored for each pixel is kept as it is. Gray samples
// stored with depth bits (or a palette that is their ramp) get their
// stored values back.
func toPlanar(img image.Image, c, depth int, dst []byte) error {
	if p, ok := img.(*image.Paletted); ok && (c == 1 || c == 3) {
		paletteToPlanar(dst, p, c, depth)
		return nil
	}
	if err := samplesToPlanar(img, c, dst); err != nil {
		return err
	}
	if depth > 0 {
		unscale(dst, depth)
	}
	return nil
}

// samplesToPlanar copies the samples of a decoded image that is not a
// palette image into c planes.
func samplesToPlanar(img image.Image, c int, dst []byte) error {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if c != 1 && c != 3 {
		return unsupportedImage(img, c)
	}
	switch im := img.(type) {
	case *image.Gray:
		if c == 1 {
			copyRows(dst, im.Pix, im.Stride, w, h)
			return nil
		}
	case *image.Gray16:
		if c == 1 {
			swapRows(dst, im.Pix, im.Stride, w, h)
			return nil
		}
	case *image.RGBA:
		deinterleave8(dst, im.Pix, im.Stride, w, h, c)
		return nil
	case *image.NRGBA:
		deinterleave8(dst, im.Pix, im.Stride, w, h, c)
		return nil
	case *image.RGBA64:
		deinterleave16(dst, im.Pix, im.Stride, w, h, c)
		return nil
	case *image.NRGBA64:
		deinterleave16(dst, im.Pix, im.Stride, w, h, c)
		return nil
	case *image.YCbCr:
		if c == 3 {
			ycbcrToPlanar(dst, im)
			return nil
		}
	}
	return unsupportedImage(img, c)
}

func unsupportedImage(img image.Image, c int) error {
	return &loader.UnsupportedError{Format: "sequence", Feature: fmt.Sprintf("decoded image type %T with %d channels", img, c)}
}

// copyRows copies h rows of w bytes from a strided buffer.
func copyRows(dst, pix []byte, stride, w, h int) {
	for y := 0; y < h; y++ {
		copy(dst[y*w:(y+1)*w], pix[y*stride:y*stride+w])
	}
}

// swapRows copies h rows of w big-endian 16-bit samples as little-endian.
func swapRows(dst, pix []byte, stride, w, h int) {
	for y := 0; y < h; y++ {
		src := pix[y*stride : y*stride+2*w]
		out := dst[2*y*w : 2*(y+1)*w]
		for x := 0; x < 2*w; x += 2 {
			out[x], out[x+1] = src[x+1], src[x]
		}
	}
}

// deinterleave8 copies the first c components of 4-byte pixels into c
// planes (a gray image decoded as RGBA has its gray in every component).
func deinterleave8(dst, pix []byte, stride, w, h, c int) {
	plane := w * h
	for ch := 0; ch < c; ch++ {
		for y := 0; y < h; y++ {
			src := pix[y*stride+ch : y*stride+4*w]
			out := dst[ch*plane+y*w : ch*plane+(y+1)*w]
			for x := range out {
				out[x] = src[4*x]
			}
		}
	}
}

// deinterleave16 copies the first c components of 8-byte big-endian
// pixels into c planes of little-endian samples.
func deinterleave16(dst, pix []byte, stride, w, h, c int) {
	plane := 2 * w * h
	for ch := 0; ch < c; ch++ {
		for y := 0; y < h; y++ {
			src := pix[y*stride+2*ch : y*stride+8*w]
			out := dst[ch*plane+2*y*w : ch*plane+2*(y+1)*w]
			for x := 0; x < w; x++ {
				out[2*x], out[2*x+1] = src[8*x+1], src[8*x]
			}
		}
	}
}

// paletteToPlanar looks up every index of a palette image: its gray, or
// its red, green and blue; a gray ramp of depth bits (0: none) keeps its
// indices.
func paletteToPlanar(dst []byte, im *image.Paletted, c, depth int) {
	b := im.Bounds()
	w, h := b.Dx(), b.Dy()
	t := newLUT(rgbOf(im.Palette), depth)
	plane := w * h
	for y := 0; y < h; y++ {
		row := im.Pix[y*im.Stride : y*im.Stride+w]
		for x, i := range row {
			for ch := 0; ch < c; ch++ {
				dst[ch*plane+y*w+x] = t[i][ch]
			}
		}
	}
}

// ycbcrToPlanar converts to R, G and B planes with color.YCbCrToRGB, as
// image/jpeg's callers see the image through color.YCbCr.
func ycbcrToPlanar(dst []byte, im *image.YCbCr) {
	b := im.Bounds()
	w, h := b.Dx(), b.Dy()
	plane := w * h
	r, g, bl := dst[:plane], dst[plane:2*plane], dst[2*plane:3*plane]
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			yi := im.YOffset(b.Min.X+x, b.Min.Y+y)
			ci := im.COffset(b.Min.X+x, b.Min.Y+y)
			i := y*w + x
			r[i], g[i], bl[i] = color.YCbCrToRGB(im.Y[yi], im.Cb[ci], im.Cr[ci])
		}
	}
}
