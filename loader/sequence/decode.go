package sequence

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	"vastview/loader"
)

// mismatchError reports a frame whose header disagrees with the first
// frame's; the caller names both files.
type mismatchError struct{ got, want frameInfo }

func (e *mismatchError) Error() string {
	return fmt.Sprintf("%v, but the first frame is %v", &e.got, &e.want)
}

// decodeFrame decodes a PNG or JPEG frame held in data into dst (planar,
// little-endian) after checking that its header matches want.
func decodeFrame(data []byte, want *frameInfo, dst []byte) error {
	info, err := parseHeader(data)
	if err != nil {
		return err
	}
	if !info.same(want) {
		return &mismatchError{got: info, want: *want}
	}
	if len(dst) != info.bytes() {
		return fmt.Errorf("buffer of %d bytes for a %d-byte frame", len(dst), info.bytes())
	}
	var img image.Image
	if info.kind == kindPNG {
		img, err = png.Decode(bytes.NewReader(data))
	} else {
		img, err = jpeg.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return err
	}
	if b := img.Bounds(); b.Min != (image.Point{}) || b.Dx() != info.w || b.Dy() != info.h {
		return fmt.Errorf("decoded %v, header says %dx%d", b, info.w, info.h)
	}
	return toPlanar(img, info.c, dst)
}

// channelsOf lists the interleaved RGBA components that make up c planes:
// gray, gray+alpha, RGB, RGBA.
var channelsOf = [5][]int{nil, {0}, {0, 3}, {0, 1, 2}, {0, 1, 2, 3}}

// toPlanar copies a decoded image's samples into dst as c planes of
// little-endian samples.
func toPlanar(img image.Image, c int, dst []byte) error {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch im := img.(type) {
	case *image.Gray:
		if c == 1 {
			copyRows(dst, im.Pix, im.Stride, w, h)
			return nil
		}
	case *image.Paletted:
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
		if c < len(channelsOf) {
			deinterleave8(dst, im.Pix, im.Stride, w, h, channelsOf[c])
			return nil
		}
	case *image.NRGBA:
		if c < len(channelsOf) {
			deinterleave8(dst, im.Pix, im.Stride, w, h, channelsOf[c])
			return nil
		}
	case *image.RGBA64:
		if c < len(channelsOf) {
			deinterleave16(dst, im.Pix, im.Stride, w, h, channelsOf[c])
			return nil
		}
	case *image.NRGBA64:
		if c < len(channelsOf) {
			deinterleave16(dst, im.Pix, im.Stride, w, h, channelsOf[c])
			return nil
		}
	case *image.YCbCr:
		if c == 3 {
			ycbcrToPlanar(dst, im)
			return nil
		}
	}
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

// deinterleave8 copies the listed components of 4-byte pixels into planes.
func deinterleave8(dst, pix []byte, stride, w, h int, chans []int) {
	plane := w * h
	for p, ch := range chans {
		for y := 0; y < h; y++ {
			src := pix[y*stride+ch : y*stride+4*w]
			out := dst[p*plane+y*w : p*plane+(y+1)*w]
			for x := range out {
				out[x] = src[4*x]
			}
		}
	}
}

// deinterleave16 copies the listed components of 8-byte big-endian pixels
// into planes of little-endian samples.
func deinterleave16(dst, pix []byte, stride, w, h int, chans []int) {
	plane := 2 * w * h
	for p, ch := range chans {
		for y := 0; y < h; y++ {
			src := pix[y*stride+2*ch : y*stride+8*w]
			out := dst[p*plane+2*y*w : p*plane+2*(y+1)*w]
			for x := 0; x < w; x++ {
				out[2*x], out[2*x+1] = src[8*x+1], src[8*x]
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
