package tiff

import (
	"io"
	"math"
	"sort"
)

// walker follows an IFD chain reading only each IFD's entry count, its
// NewSubfileType and its next-IFD offset. It reads with small positioned
// reads rather than through the mapping: touching one mapped page per IFD
// makes the kernel read around each one, which for a long stack costs more
// than the reads themselves. It detects loops and chains longer than the
// file could hold. It is not safe for concurrent use.
type walker struct {
	f      *file
	r      io.ReaderAt // the same file
	buf    [256]byte
	chain  []int64 // every IFD visited, in chain order
	sorted int     // chain[:sorted] is strictly increasing
	late   map[int64]struct{}
	keys   bool    // read each IFD's key
	last   pageKey // with keys: the key of the IFD visited last
}

// step visits the IFD at off: it returns the next offset and whether the
// IFD is a page of the stack (not a reduced-resolution copy or a mask).
func (w *walker) step(off int64) (next int64, stack bool, err error) {
	if w.seen(off) {
		return 0, false, formatErr("IFD chain loops back to offset %d", off)
	}
	if int64(len(w.chain)) >= w.f.size()/w.f.minIFDSize() {
		return 0, false, formatErr("IFD chain is longer than the file can hold")
	}
	next, sub, err := w.head(off)
	if err != nil {
		return 0, false, err
	}
	w.add(off)
	return next, sub&5 == 0, nil
}

// head reads the IFD at off: its next offset and NewSubfileType, checking
// that the whole IFD lies inside the file.
func (w *walker) head(off int64) (next int64, subfile uint64, err error) {
	f := w.f
	if err := f.checkIFDStart(off); err != nil {
		return 0, 0, err
	}
	cs, es, ns := f.ifdSizes()
	b := w.buf[:min(int64(len(w.buf)), f.size()-off)]
	if _, err := w.r.ReadAt(b, off); err != nil && err != io.EOF {
		return 0, 0, err
	}
	var cnt uint64
	if f.big {
		cnt = f.bo.Uint64(b)
	} else {
		cnt = uint64(f.bo.Uint16(b))
	}
	np, err := f.checkIFDEnd(off, cnt)
	if err != nil {
		return 0, 0, err
	}
	if w.keys {
		if w.last, err = w.key(off, b, int64(cnt)); err != nil {
			return 0, 0, err
		}
	}
	var nb []byte
	if np+ns <= off+int64(len(b)) {
		nb = b[np-off:]
	} else {
		nb = make([]byte, ns)
		if _, err := w.r.ReadAt(nb, np); err != nil && err != io.EOF {
			return 0, 0, err
		}
	}
	if f.big {
		u := f.bo.Uint64(nb)
		if u > math.MaxInt64 {
			return 0, 0, formatErr("IFD at offset %d: next IFD offset out of range", off)
		}
		next = int64(u)
	} else {
		next = int64(f.bo.Uint32(nb))
	}
	return next, w.subfileType(b[cs:], int64(cnt), es), nil
}

// subfileType finds an inline NewSubfileType among the entries in b (entries
// are sorted by tag, so the scan stops early).
func (w *walker) subfileType(b []byte, n, es int64) uint64 {
	bo := w.f.bo
	for i := int64(0); i < n && (i+1)*es <= int64(len(b)); i++ {
		e := b[i*es:]
		tag := bo.Uint16(e)
		if tag > tagNewSubfileType {
			return 0
		}
		if tag != tagNewSubfileType {
			continue
		}
		typ := bo.Uint16(e[2:])
		v := e[8:]
		if w.f.big {
			v = e[12:]
		}
		switch typ {
		case tLong:
			return uint64(bo.Uint32(v))
		case tShort:
			return uint64(bo.Uint16(v))
		case tLong8:
			return bo.Uint64(v)
		}
		return 0
	}
	return 0
}

func (w *walker) seen(off int64) bool {
	pre := w.chain[:w.sorted]
	i := sort.Search(len(pre), func(i int) bool { return pre[i] >= off })
	if i < len(pre) && pre[i] == off {
		return true
	}
	_, ok := w.late[off]
	return ok
}

func (w *walker) add(off int64) {
	if w.late == nil && (w.sorted == 0 || w.chain[w.sorted-1] < off) {
		w.sorted++
	} else {
		if w.late == nil {
			w.late = make(map[int64]struct{})
		}
		w.late[off] = struct{}{}
	}
	w.chain = append(w.chain, off)
}
