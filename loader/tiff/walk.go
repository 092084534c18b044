package tiff

import "sort"

// walker follows an IFD chain reading only each IFD's entry count, its
// NewSubfileType and its next-IFD offset. It detects loops and chains longer
// than the file could hold. It is not safe for concurrent use.
type walker struct {
	f      *file
	chain  []int64 // every IFD visited, in chain order
	sorted int     // chain[:sorted] is strictly increasing
	late   map[int64]struct{}
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
	n, next, err := w.f.ifdHead(off)
	if err != nil {
		return 0, false, err
	}
	w.add(off)
	return next, w.f.subfileType(off, n)&5 == 0, nil
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

// subfileType reads NewSubfileType from the IFD at off with n entries
// (entries are sorted by tag, so the scan stops early).
func (f *file) subfileType(off, n int64) uint64 {
	for i := int64(0); i < n; i++ {
		e := f.entryAt(off, i)
		if e.tag == tagNewSubfileType {
			if isUint(e) && e.count >= 1 && f.check(e) {
				return f.uintAt(e, 0)
			}
			return 0
		}
		if e.tag > tagNewSubfileType {
			return 0
		}
	}
	return 0
}
