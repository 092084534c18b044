package tiff

import "io"

// pageKey is what makes pages images of one series: their shape and their
// sample type and layout, as far as the reader needs them alike (see
// page.sameLayout), how many reduced-resolution copies it lists in its
// SubIFDs (the levels of a series are read from each of its pages), and
// whether the page carries a description (tifffile starts each series it
// writes with one). The walker reads it from the
// IFD's entries with positioned reads, as it reads the chain.
type pageKey struct {
	width, height       uint64
	spp, bits, format   uint64
	photometric, planar uint64
	tw, th              uint64 // tile size; 0 for strips
	subIFDs             uint64 // the SubIFDs' count
	desc                bool
}

// same reports whether pages of keys k and q belong to one series.
func (k pageKey) same(q pageKey) bool {
	k.desc, q.desc = false, false
	return k == q
}

// key reads the key of the IFD at off, whose first bytes (its entry count
// and, as far as they reach, its entries) are in b.
func (w *walker) key(off int64, b []byte, cnt int64) (pageKey, error) {
	f := w.f
	cs, es, _ := f.ifdSizes()
	if need := cs + cnt*es; int64(len(b)) < need {
		nb := make([]byte, need)
		if _, err := w.r.ReadAt(nb, off); err != nil && err != io.EOF {
			return pageKey{}, err
		}
		b = nb
	}
	k := pageKey{spp: 1, bits: 1, format: 1, photometric: 1 << 16, planar: 1}
	bo := f.bo
	for i := int64(0); i < cnt; i++ {
		e := b[cs+i*es:]
		tag := bo.Uint16(e)
		if tag > tagSampleFormat {
			break
		}
		var dst *uint64
		switch tag {
		case tagImageWidth:
			dst = &k.width
		case tagImageLength:
			dst = &k.height
		case tagBitsPerSample:
			dst = &k.bits
		case tagPhotometric:
			dst = &k.photometric
		case tagSamplesPerPixel:
			dst = &k.spp
		case tagPlanarConfig:
			dst = &k.planar
		case tagTileWidth:
			dst = &k.tw
		case tagTileLength:
			dst = &k.th
		case tagSubIFDs:
			k.subIFDs = uint64(bo.Uint32(e[4:]))
			if f.big {
				k.subIFDs = bo.Uint64(e[4:])
			}
			continue
		case tagSampleFormat:
			dst = &k.format
		case tagDescription:
			k.desc = true
			continue
		default:
			continue
		}
		v, err := w.firstValue(e)
		if err != nil {
			return pageKey{}, err
		}
		*dst = v
	}
	if k.spp <= 1 || k.planar != 2 {
		k.planar = 1
	}
	return k, nil
}

// firstValue returns the first value of the integer entry e, read from
// where its values are stored (the entry itself, or an offset in the file).
func (w *walker) firstValue(e []byte) (uint64, error) {
	f := w.f
	bo := f.bo
	typ := bo.Uint16(e[2:])
	var size int64
	switch typ {
	case tShort:
		size = 2
	case tLong:
		size = 4
	case tLong8:
		size = 8
	default:
		return 0, nil
	}
	var count uint64
	v, inline := e[8:], int64(4)
	if f.big {
		count, v, inline = bo.Uint64(e[4:]), e[12:], 8
	} else {
		count = uint64(bo.Uint32(e[4:]))
	}
	if count == 0 {
		return 0, nil
	}
	if count > uint64(inline/size) {
		var at int64
		if f.big {
			at = int64(bo.Uint64(v))
		} else {
			at = int64(bo.Uint32(v))
		}
		if at < 0 || !f.has(at, size) {
			return 0, truncErr("IFD value at offset %d outside the file", at)
		}
		var nb [8]byte
		if _, err := w.r.ReadAt(nb[:size], at); err != nil && err != io.EOF {
			return 0, err
		}
		v = nb[:]
	}
	switch size {
	case 2:
		return uint64(bo.Uint16(v)), nil
	case 4:
		return uint64(bo.Uint32(v)), nil
	}
	return bo.Uint64(v), nil
}

// survey walks the chain from off, listing up to limit stack pages (all
// when limit <= 0) with their keys. It returns where the chain goes on
// after them (0 at its end). A chain cut off by the end of the file keeps
// the pages walked and returns the truncation error.
func survey(f *file, r io.ReaderAt, off int64, limit int) (offs []int64, keys []pageKey, next int64, err error) {
	w := &walker{f: f, r: r, keys: true}
	for off != 0 && (limit <= 0 || len(offs) < limit) {
		var stack bool
		var n int64
		if n, stack, err = w.step(off); err != nil {
			return offs, keys, 0, err
		}
		if stack || len(w.chain) == 1 {
			offs = append(offs, off)
			keys = append(keys, w.last)
		}
		off = n
	}
	return offs, keys, off, nil
}

// groupPages splits the pages of keys into series and returns the indexes
// of each series' pages. Where tifffile's shape descriptions mark where
// each series starts (shaped), a series is a run of pages of one key that
// starts at a page with a description, as tifffile reads its own files;
// else (as tifffile reads other files) pages of one key make one series,
// wherever they are, in the order of their first pages.
func groupPages(keys []pageKey, shaped bool) [][]int {
	var groups [][]int
	if shaped {
		for i, k := range keys {
			if i == 0 || k.desc || !k.same(keys[i-1]) {
				groups = append(groups, nil)
			}
			groups[len(groups)-1] = append(groups[len(groups)-1], i)
		}
		return groups
	}
	first := map[pageKey]int{}
	for i, k := range keys {
		k.desc = false
		g, ok := first[k]
		if !ok {
			g = len(groups)
			first[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}
