package sequence

import (
	"context"
	"errors"
	"fmt"
	"os"

	"vastview/loader"
)

// Picture is a single PNG, JPEG or BMP file opened as one 2-D image: axes
// "YX" for a gray picture, "CYX" for a colour one, whose C axis holds the
// red, green and blue samples (Meta.RGB). It is one chunk, decoded from the
// file on each ReadChunk. It is safe for concurrent use.
//
// What the samples are:
//   - Alpha is dropped (gray+alpha becomes gray, RGBA becomes RGB): the
//     viewer draws colour without transparency, and the colour the file
//     stores for each pixel is kept as it is, neither premultiplied nor
//     blended with a background, so that `plane --out F.raw` gives the
//     samples other tools read as the picture's colour.
//   - Palette images are expanded to the colours they show: gray samples if
//     every palette entry is a gray, else RGB. The viewer draws samples,
//     not indices, and a palette's meaning is its colours; a palette that
//     is exactly the gray ramp of a 1-, 2- or 4-bit image keeps its
//     indices, as a gray image of that depth does.
//   - Gray samples of 1, 2 or 4 bits keep their stored values (0 and 1 for
//     a 1-bit mask) as uint8, with a display window of 0 to 2^bits-1;
//     16-bit samples stay uint16.
//
// Refused with an error naming the feature: CMYK and 12-bit JPEG, and BMP
// files with RLE or bit-field compression or 16 bits per pixel.
type Picture struct {
	path   string
	info   frameInfo
	meta   *loader.Meta
	closed loader.Closing // a read after Close is ErrClosed
}

// OpenPicture reads the header of the PNG, JPEG or BMP file at path.
// Errors do not repeat the path.
func OpenPicture(ctx context.Context, path string) (*Picture, error) {
	info, err := readHeader(ctx, path)
	if err != nil {
		return nil, err
	}
	if info.kind != kindPNG && info.kind != kindJPEG && info.kind != kindBMP {
		return nil, errNotImage
	}
	return &Picture{path: path, info: info, meta: pictureMeta(&info, 1, nil)}, nil
}

// pictureMeta describes a file of n frames like f: axes YX or CYX, with a
// leading T axis of the given spacing (nil: unknown) when n > 1.
func pictureMeta(f *frameInfo, n int, tSpacing []float64) *loader.Meta {
	axes, shape, chunk := "YX", []int{f.h, f.w}, []int{f.h, f.w}
	if f.c > 1 {
		axes, shape, chunk = "CYX", []int{f.c, f.h, f.w}, []int{f.c, f.h, f.w}
	}
	var spacing []float64
	var units []string
	if n > 1 {
		axes, shape, chunk = "T"+axes, append([]int{n}, shape...), append([]int{1}, chunk...)
		if tSpacing != nil {
			spacing = append(tSpacing, ones(len(axes)-1)...)
			units = make([]string, len(axes))
			units[0] = "second"
		}
	}
	m := loader.NewMeta(f.kind.String(), axes, shape, f.dtype, chunk, spacing, units)
	describe(m, f)
	return m
}

// ones returns n ones.
func ones(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// describe adds to m what f says about displaying the samples: colour
// pixels, or the value range of gray samples stored with fewer bits.
func describe(m *loader.Meta, f *frameInfo) {
	m.RGB = f.rgb
	if f.depth > 0 {
		m.Channels = []loader.Channel{{Lo: 0, Hi: float64(int(1)<<f.depth - 1), HasWindow: true}}
	}
}

// Meta describes the picture. It is safe for concurrent use.
func (p *Picture) Meta() *loader.Meta { return p.meta }

// Close ends reading; it releases nothing, as the file is opened while it
// is read.
func (p *Picture) Close() error {
	p.closed.SetClosed()
	return nil
}

// ReadChunk decodes the picture into dst; the only chunk is index all
// zeros at level 0. It is safe for concurrent use.
func (p *Picture) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, p.meta, level, idx, dst); err != nil {
		return err
	}
	if err := p.closed.Closed(); err != nil {
		return err
	}
	data, err := readWhole(p.path)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err = decodeFrame(data, &p.info, dst)
	var mm *mismatchError
	if errors.As(err, &mm) {
		return fmt.Errorf("changed since it was opened: now %v, was %v", &mm.got, &mm.want)
	}
	return err
}

// readWhole reads a file of at most maxFileBytes.
func readWhole(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxFileBytes {
		return nil, fmt.Errorf("file of %d bytes is too large for one frame", st.Size())
	}
	data := make([]byte, st.Size())
	n, err := f.ReadAt(data, 0)
	if n < len(data) && err != nil {
		return nil, err
	}
	return data, nil
}
