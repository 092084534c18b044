package nd2

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"

	"vastview/base/textutil"
	"vastview/loader"
	"vastview/loader/internal/rawvol"
)

// source is an opened ND2 image, one series of its file.
type source struct {
	*rawvol.Source
	img *image
}

// OpenSeries opens multipoint position i of the file (see
// loader.SeriesOpener).
func (s *source) OpenSeries(ctx context.Context, i int) (loader.Source, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n := len(s.Meta().Series); i < 0 || i >= max(n, 1) {
		return nil, fmt.Errorf("nd2: no series %d (the file holds %d)", i, max(n, 1))
	}
	return s.img.open(i)
}

// series reports whether the file's positions are series.
func (img *image) series() int {
	if img.xy >= 0 && img.loops[img.xy].count > 1 {
		return img.loops[img.xy].count
	}
	return 1
}

// seq returns the frame number (N of ImageDataSeq|N!) of plane i of
// series p: i counts over the loops other than the multipoint one, in
// their order, the last fastest.
func (img *image) seq(p, i int) int {
	n, stride := 0, 1
	for k := len(img.loops) - 1; k >= 0; k-- {
		c := img.loops[k].count
		if k == img.xy {
			n += p * stride
		} else {
			n += i % c * stride
			i /= c
		}
		stride *= c
	}
	return n
}

// frame returns the time stamp (ms) and the bytes after it of frame n,
// under f's guard.
func (img *image) frame(f *loader.File, n int) (ms float64, pix []byte, at int64, err error) {
	off, ok := img.frames[n]
	if !ok {
		return 0, nil, 0, fmt.Errorf("the chunk map lists no ImageDataSeq|%d", n)
	}
	name, data, err := chunkAt(f, off)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("ImageDataSeq|%d! at byte %d: %w", n, off, err)
	}
	if want := framePrefix + strconv.Itoa(n) + "!"; !bytes.HasPrefix(name, []byte(want)) {
		return 0, nil, 0, fmt.Errorf("the chunk map puts ImageDataSeq|%d! at byte %d, where a chunk named %q is", n, off, textutil.Clip(string(cName(name))))
	}
	if len(data) < 8 {
		return 0, nil, 0, fmt.Errorf("ImageDataSeq|%d! holds %d bytes: %w", n, len(data), loader.ErrTruncated)
	}
	ms = math.Float64frombits(binary.LittleEndian.Uint64(data))
	return ms, data[8:], off + chunkHeader + int64(len(name)) + 8, nil
}

// storedBytes is the size of a frame's pixels as stored (rows padded to
// rowBytes, the last row not necessarily).
func (img *image) storedBytes() int64 {
	return int64(img.height-1)*img.rowBytes + int64(img.width*img.comps*img.sampleBytes)
}

// open opens series p.
func (img *image) open(p int) (loader.Source, error) {
	var axes []byte
	var shape []int
	for k, l := range img.loops {
		if k != img.xy {
			axes, shape = append(axes, l.axis), append(shape, l.count)
		}
	}
	planes := 1
	for _, v := range shape {
		planes *= v
	}
	interleaved := img.comps > 1
	if interleaved {
		axes, shape = append(axes, 'C'), append(shape, img.comps)
	}
	axes, shape = append(axes, 'Y', 'X'), append(shape, img.height, img.width)
	n := len(axes)
	spacing, units := make([]float64, n), make([]string, n)
	for i := range spacing {
		spacing[i] = 1
	}
	if img.umPerPx > 0 {
		spacing[n-2], spacing[n-1] = img.umPerPx, img.umPerPx
		units[n-2], units[n-1] = "micrometer", "micrometer"
	}
	if z := bytes.IndexByte(axes, 'Z'); z >= 0 && img.zStep > 0 {
		spacing[z], units[z] = img.zStep, "micrometer"
	}
	frameBytes, err := rawvol.ArrayBytes(shape[len(shape)-3+boolInt(!interleaved):], img.dtype)
	if err != nil {
		return nil, formatError("frames of %d×%d pixels: %v", img.width, img.height, err)
	}
	if _, err := rawvol.ArrayBytes(shape, img.dtype); err != nil {
		return nil, formatError("%v", err)
	}
	m := loader.NewMeta("nd2", string(axes), shape, img.dtype, rawvol.PlaneChunk(shape, interleaved), spacing, units)
	m.Channels = append([]loader.Channel(nil), img.channels...)
	m.RGB = img.rgb && interleaved
	m.Notes = append([]string(nil), img.notes...)
	if ns := img.series(); ns > 1 {
		one := []*loader.Meta{m}
		metas := make([]*loader.Meta, ns)
		for i := range metas {
			metas[i] = one[0]
		}
		m.Series = loader.SeriesList(img.points, metas)
		m.SeriesIndex = p
	}

	f, err := loader.OpenFile(img.path)
	if err != nil {
		return nil, err
	}
	if err := img.times(f, p, m); err != nil {
		f.Close()
		return nil, err
	}
	if f.Size() < img.storedBytes() && !img.compressed {
		f.Close()
		return nil, formatError("frames of %d bytes in a file of %d: %v", img.storedBytes(), f.Size(), loader.ErrTruncated)
	}
	var data rawvol.Data
	if !img.compressed && img.rowBytes == int64(img.width*img.comps*img.sampleBytes) {
		f.Close()
		data, err = rawvol.Framed(img.path, planes, frameBytes, func(f *loader.File, i int) (int64, error) {
			_, pix, at, err := img.frame(f, img.seq(p, i))
			if err == nil && int64(len(pix)) < frameBytes {
				err = fmt.Errorf("ImageDataSeq|%d! holds %d bytes of pixels, not %d: %w", img.seq(p, i), len(pix), frameBytes, loader.ErrTruncated)
			}
			return at, err
		})
		if err != nil {
			return nil, formatError("%v", err)
		}
	} else {
		if img.compressed && frameBytes/maxRatio > f.Size() {
			f.Close()
			return nil, formatError("compressed frames of %d bytes in a file of %d", frameBytes, f.Size())
		}
		data = &frames{img: img, f: f, p: p, planes: planes, frameBytes: frameBytes}
	}
	rs, err := rawvol.New(m, data, false, interleaved)
	if err != nil {
		return nil, err
	}
	return &source{Source: rs, img: img}, nil
}

// maxRatio bounds how far zlib can compress (deflate's limit is about
// 1032:1).
const maxRatio = 1100

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// times sets the T axis's spacing from the time stamps of series p's
// first and last time points (the loop's period when they do not say),
// and its translation from the first.
func (img *image) times(f *loader.File, p int, m *loader.Meta) (err error) {
	defer f.Guard().Recover(&err)
	t := m.AxisIndex('T')
	if t < 0 {
		return nil
	}
	// The plane index of time point k, other axes at 0.
	stride := 1
	for _, v := range m.Shape[t+1 : len(m.Shape)-2-boolInt(img.comps > 1)] {
		stride *= v
	}
	nt := m.Shape[t]
	t0, _, _, err0 := img.frame(f, img.seq(p, 0))
	t1, _, _, err1 := img.frame(f, img.seq(p, (nt-1)*stride))
	if err0 == nil && !math.IsNaN(t0) && !math.IsInf(t0, 0) && t0 >= 0 {
		m.Levels[0].Translation[t] = t0 / 1000
	}
	step := 0.0
	if err0 == nil && err1 == nil && nt > 1 {
		step = (t1 - t0) / float64(nt-1) / 1000
	}
	if !(step > 0) || math.IsInf(step, 0) {
		step = img.periodMs / 1000
	}
	if step > 0 && !math.IsInf(step, 0) {
		m.Spacing[t], m.Units[t] = step, "second"
		m.Levels[0].Scale[t] = step
	}
	return nil
}

// frames is the Data of frames that need more than a view of the file:
// compressed, or with padded rows.
type frames struct {
	img        *image
	f          *loader.File
	p          int
	planes     int
	frameBytes int64
}

func (d *frames) Size() int64 { return int64(d.planes) * d.frameBytes }

func (d *frames) Close() error { return d.f.Close() }

func (d *frames) Read(_ context.Context, off, n int64, buf []byte) (_ []byte, err error) {
	if n != d.frameBytes || off < 0 || off%n != 0 || off/n >= int64(d.planes) || int64(len(buf)) < n {
		return nil, fmt.Errorf("%d bytes at %d are not a frame", n, off)
	}
	defer d.f.Guard().Recover(&err)
	img := d.img
	seq := img.seq(d.p, int(off/n))
	_, pix, _, err := img.frame(d.f, seq)
	if err != nil {
		return nil, err
	}
	stored := img.storedBytes()
	if img.compressed {
		zr, err := zlib.NewReader(bytes.NewReader(pix))
		if err != nil {
			return nil, fmt.Errorf("ImageDataSeq|%d!: %v", seq, err)
		}
		raw := buf[:n]
		if stored != n {
			raw = make([]byte, stored)
		}
		if _, err := io.ReadFull(zr, raw); err != nil {
			return nil, fmt.Errorf("ImageDataSeq|%d! inflates to fewer than %d bytes: %v", seq, stored, err)
		}
		pix = raw
	}
	if int64(len(pix)) < stored {
		return nil, fmt.Errorf("ImageDataSeq|%d! holds %d bytes of pixels, not %d: %w", seq, len(pix), stored, loader.ErrTruncated)
	}
	row := int64(img.width * img.comps * img.sampleBytes)
	out := buf[:n]
	if &pix[0] == &out[0] {
		return out, nil
	}
	for y := int64(0); y < int64(img.height); y++ {
		copy(out[y*row:(y+1)*row], pix[y*img.rowBytes:])
	}
	return out, nil
}
