package n5

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pierrec/lz4/v4"

	"vastview/loader"
	"vastview/loader/zarr/store"
)

// Source is an opened N5 image. It is safe for concurrent use.
type Source struct {
	st     store.Store
	meta   *loader.Meta
	imgs   []*image
	img    *image
	levels []*dataset
}

// newSource makes the Source of image i of imgs, which st holds. On error
// st is closed.
func newSource(ctx context.Context, st store.Store, imgs []*image, i int) (*Source, error) {
	img := imgs[i]
	if err := img.err(); err != nil {
		st.Close()
		return nil, err
	}
	m, err := imageMeta(img)
	if err == nil {
		err = m.Validate()
	}
	if err != nil {
		st.Close()
		var fe *loader.FormatError
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, formatError("%s: %v", img.describe(), err)
	}
	if len(imgs) > 1 || img.path != "" { // a container: its images by path
		metas := make([]*loader.Meta, len(imgs))
		names := make([]string, len(imgs))
		for j, o := range imgs {
			names[j] = o.path
			if j == i {
				metas[j] = m
				continue
			}
			l0 := o.levels[0]
			metas[j] = &loader.Meta{Axes: axesOf(l0.attrs, len(l0.shape)), Shape: l0.shape, DType: l0.dtype}
			if o.frames != nil {
				metas[j].Axes, metas[j].Shape = "T"+metas[j].Axes, append([]int{len(o.frames)}, l0.shape...)
			}
		}
		m.Series, m.SeriesIndex = loader.SeriesList(names, metas), i
	}
	return &Source{st: st, meta: m, imgs: imgs, img: img, levels: img.levels}, nil
}

// Identity names the image's content for caches of what is derived from
// it: the identity of its folder (loader.FileIdentity), or for a URL the
// address it is read from (the store's Origin: the endpoint too) with the ETag, Last-Modified and size the server sent for its
// level 0's attributes.json (an error matching loader.ErrNoValidator if
// it sent neither ETag nor Last-Modified). It is safe for concurrent use.
func (s *Source) Identity() (loader.Identity, error) {
	switch st := s.st.(type) {
	case *store.Folder:
		return loader.FileIdentity(filepath.Join(st.String(), filepath.FromSlash(s.img.path)))
	case *store.HTTP:
		loc := strings.TrimRight(st.Origin(), "/")
		if s.img.path != "" {
			loc += "/" + s.img.path
		}
		info := s.levels[0].attrs.info
		return loader.URLIdentity(loc, info.ETag, info.Modified, info.Size)
	}
	return loader.Identity{}, fmt.Errorf("no identity for a store in %s", s.st)
}

// Meta describes the image.
func (s *Source) Meta() *loader.Meta { return s.meta }

// OpenSeries opens image i of the container (see Meta().Series) on a
// store of its own.
func (s *Source) OpenSeries(ctx context.Context, i int) (loader.Source, error) {
	if i < 0 || i >= len(s.imgs) {
		return nil, fmt.Errorf("n5: no series %d (the container holds %d)", i, len(s.imgs))
	}
	st, err := store.OpenContext(ctx, s.st.String())
	if err != nil {
		return nil, err
	}
	return newSource(ctx, st, s.imgs, i)
}

// Close closes the store; reads in flight end with an error.
func (s *Source) Close() error { return s.st.Close() }

// ReadChunk fills dst with the block at grid index idx of a level. A
// block the store does not hold reads as zeros, with an error matching
// loader.ErrNotStored. It is safe for concurrent use.
func (s *Source) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	d := s.levels[level]
	if s.img.frames != nil { // T picks the timepoint
		d, idx = s.img.frames[idx[0]].levels[level], idx[1:]
	}
	key := d.blockKey(idx)
	b, _, err := store.GetAtMost(ctx, s.st, key, d.maxBlock+d.maxBlock/4+1<<20)
	if err != nil {
		clear(dst)
		if errors.Is(err, store.ErrNotFound) {
			return errNotStored(key)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return formatError("block %s: %v", key, loader.StripPath(err))
	}
	var extBuf [maxDims]int
	ext := extBuf[:len(idx)]
	for i, v := range idx {
		ext[i] = min(d.block[i], d.shape[i]-v*d.block[i])
	}
	if err := d.decodeBlock(b, dst, ext); err != nil {
		clear(dst)
		return formatError("block %s: %v", key, err)
	}
	return nil
}

// blockKey is the key of the block at grid index idx (C order): the
// dataset's path, then the index fastest first.
func (d *dataset) blockKey(idx []int) string {
	var b strings.Builder
	if d.path != "" {
		b.WriteString(d.path)
		b.WriteByte('/')
	}
	for i := len(idx) - 1; i >= 0; i-- {
		b.WriteString(strconv.Itoa(idx[i]))
		if i > 0 {
			b.WriteByte('/')
		}
	}
	return b.String()
}

// The block modes of N5's block header.
const (
	modeDefault   = 0
	modeVarLength = 1
)

// decodeBlock decodes the stored block b into dst, a whole chunk of the
// dataset in C order with little-endian samples: the block's samples
// where it has them (its header gives its size, at most the block size)
// within ext (the part of the chunk inside the array), zeros elsewhere.
func (d *dataset) decodeBlock(b []byte, dst []byte, ext []int) error {
	n := len(d.block)
	if len(b) < 4 {
		return errors.New("the block header is cut short")
	}
	mode, ndim := binary.BigEndian.Uint16(b), int(binary.BigEndian.Uint16(b[2:]))
	if mode != modeDefault && mode != modeVarLength {
		return fmt.Errorf("block mode %d is not an array block", mode)
	}
	if ndim != n {
		return fmt.Errorf("a block of %d dimensions in a dataset of %d", ndim, n)
	}
	hl := 4 + 4*n
	if mode == modeVarLength {
		hl += 4
	}
	if len(b) < hl {
		return errors.New("the block header is cut short")
	}
	es := d.dtype.Size()
	var sizeBuf [maxDims]int
	size := sizeBuf[:n] // the block's size, C order
	elems := int64(1)
	for i := 0; i < n; i++ {
		v := int64(binary.BigEndian.Uint32(b[4+4*(n-1-i):]))
		if v < 1 || v > int64(d.bs[i]) {
			return fmt.Errorf("a block of size %v in a dataset of block size %v", reversed(b[4:4+4*n]), d.attrs.BlockSize)
		}
		size[i] = int(v)
		elems *= v
	}
	want := elems * int64(es)
	if mode == modeVarLength {
		if ne := int64(binary.BigEndian.Uint32(b[4+4*n:])); ne != elems {
			return fmt.Errorf("a block of %d samples whose size says %d", ne, elems)
		}
	}
	payload := b[hl:]
	var data []byte
	switch {
	case d.codec == nil:
		data = payload
	case d.lz4 && len(payload) >= 8 && string(payload[:8]) == lz4BlockMagic:
		var err error
		if data, err = lz4Blocks(payload, int(want)); err != nil {
			return err
		}
	default:
		var err error
		if data, err = d.codec.Decode(nil, payload, int(want)); err != nil {
			var fe *loader.FormatError
			if errors.As(err, &fe) {
				return errors.New(fe.Msg)
			}
			return err
		}
	}
	if int64(len(data)) != want {
		return fmt.Errorf("%d bytes of samples for a block of %v samples of %d bytes", len(data), size, es)
	}
	clear(dst)
	copyBlock(dst, data, d.block, size, ext, es)
	return nil
}

// reversed lists the big-endian uint32 values of b in order, for messages.
func reversed(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	return out
}

// copyBlock copies the big-endian samples of a block of the given size
// (C order) into dst, a chunk of shape chunk, swapping them to
// little-endian; what lies beyond ext, the part of the chunk inside the
// array (a zarr-python edge block is padded to the block size), is left
// out.
func copyBlock(dst, src []byte, chunk, size, ext []int, es int) {
	n := len(chunk)
	var limBuf [maxDims]int
	lim := limBuf[:n]
	for i := range lim {
		lim[i] = min(size[i], ext[i])
	}
	row := lim[n-1]
	var posBuf [maxDims]int
	pos := posBuf[:n-1]
	for {
		so, do := 0, 0
		for i := 0; i < n-1; i++ {
			so = so*size[i] + pos[i]
			do = do*chunk[i] + pos[i]
		}
		s := src[so*size[n-1]*es:][:row*es]
		o := dst[do*chunk[n-1]*es:][:row*es]
		copy(o, s)
		loader.SwapBytes(o, es) // N5 samples are big-endian
		i := n - 2
		for ; i >= 0; i-- {
			pos[i]++
			if pos[i] < lim[i] {
				break
			}
			pos[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// lz4BlockMagic starts each block of lz4-java's LZ4BlockOutputStream, the
// stream N5's lz4 compression writes.
const lz4BlockMagic = "LZ4Block"

// lz4Blocks decodes an lz4-java block stream (blocks of: the magic, a
// token whose high nibble says raw (1) or LZ4 (2), the compressed and
// decompressed lengths and a checksum as little-endian int32, then the
// data) of exactly want bytes; an empty block ends it.
func lz4Blocks(src []byte, want int) ([]byte, error) {
	const header = 8 + 1 + 4 + 4 + 4
	out := make([]byte, 0, want)
	for len(src) > 0 {
		if len(src) < header || string(src[:8]) != lz4BlockMagic {
			return nil, errors.New("lz4: a block of the stream is cut short or has no magic")
		}
		method := src[8] & 0xf0
		clen := int64(int32(binary.LittleEndian.Uint32(src[9:])))
		dlen := int64(int32(binary.LittleEndian.Uint32(src[13:])))
		src = src[header:]
		if dlen == 0 && clen == 0 {
			break
		}
		if clen < 0 || dlen < 0 || clen > int64(len(src)) || dlen > int64(want-len(out)) {
			return nil, fmt.Errorf("lz4: a block of %d bytes decoding to %d in a stream of %d bytes for %d", clen, dlen, len(src), want)
		}
		dst := out[len(out) : len(out)+int(dlen)]
		switch method {
		case 0x10:
			if clen != dlen {
				return nil, fmt.Errorf("lz4: a raw block of %d bytes said to decode to %d", clen, dlen)
			}
			copy(dst, src[:clen])
		case 0x20:
			k, err := lz4.UncompressBlock(src[:clen], dst)
			if err != nil || int64(k) != dlen {
				return nil, fmt.Errorf("lz4: a block does not decode to its %d bytes", dlen)
			}
		default:
			return nil, fmt.Errorf("lz4: block method %#x", method)
		}
		out = out[:len(out)+int(dlen)]
		src = src[clen:]
	}
	return out, nil
}
