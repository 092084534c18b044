package hdf5

import (
	"bytes"
	"math/bits"
)

// extArray is an extensible array chunk index: its header and index block.
type extArray struct {
	elemSize    int
	maxBits     int
	idxElems    int
	dblkMin     int
	sblkMinPtrs int
	pageBits    int
	arrOff      int // bytes of a block offset
	iblock      uint64
	// Index block contents.
	elems     [][]byte
	dblkAddrs []uint64
	sblkAddrs []uint64
	sblks     []eaSuper
	iblockSB  int // super blocks whose data blocks the index block lists
}

// eaSuper describes one super block of the array.
type eaSuper struct {
	ndblks    uint64
	dblkElems uint64
	startIdx  uint64
	startDblk uint64
}

// loadExtArray reads the header and index block of the extensible array.
func (d *dataset) loadExtArray() (*extArray, error) {
	h := d.h
	b, err := h.readUpTo(d.addr, int64(12+6*h.lenSize+h.offSize+4), "extensible array")
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte("EAHD")) {
		return nil, errorf("%s: extensible array has no EAHD signature", d.path)
	}
	r := h.newReader(b)
	r.skip(6)
	ea := &extArray{}
	ea.elemSize = int(r.u8())
	ea.maxBits = int(r.u8())
	ea.idxElems = int(r.u8())
	ea.dblkMin = int(r.u8())
	ea.sblkMinPtrs = int(r.u8())
	ea.pageBits = int(r.u8())
	for i := 0; i < 6; i++ {
		r.length()
	}
	ea.iblock = r.addr()
	pow2 := func(v int) bool { return v > 0 && v&(v-1) == 0 }
	if r.err != nil || ea.elemSize != d.entrySize() || ea.maxBits == 0 || ea.maxBits > 64 ||
		!pow2(ea.dblkMin) || !pow2(ea.sblkMinPtrs) || ea.pageBits > 32 {
		return nil, errorf("%s: extensible array header", d.path)
	}
	ea.arrOff = (ea.maxBits + 7) / 8
	nsblks := 1 + ea.maxBits - bits.TrailingZeros(uint(ea.dblkMin))
	if nsblks < 1 || nsblks > 128 {
		return nil, errorf("%s: extensible array of %d super blocks", d.path, nsblks)
	}
	var idx, dblk uint64
	for s := 0; s < nsblks; s++ {
		sb := eaSuper{ndblks: 1 << (s / 2), dblkElems: uint64(ea.dblkMin) << ((s + 1) / 2), startIdx: idx, startDblk: dblk}
		ea.sblks = append(ea.sblks, sb)
		idx += sb.ndblks * sb.dblkElems
		dblk += sb.ndblks
	}
	ea.iblockSB = 2 * bits.TrailingZeros(uint(ea.sblkMinPtrs))
	ndblk := 2 * (ea.sblkMinPtrs - 1)
	nsblk := nsblks - ea.iblockSB
	if ea.iblock == undef {
		return ea, nil
	}
	size := 6 + h.offSize + ea.idxElems*ea.elemSize + (ndblk+max(nsblk, 0))*h.offSize
	ib, err := h.readAt(ea.iblock, int64(size), "extensible array index block")
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(ib, []byte("EAIB")) {
		return nil, errorf("%s: extensible array index block has no EAIB signature", d.path)
	}
	r = h.newReader(ib)
	r.skip(6 + h.offSize)
	for i := 0; i < ea.idxElems; i++ {
		ea.elems = append(ea.elems, r.bytes(ea.elemSize))
	}
	for i := 0; i < ndblk; i++ {
		ea.dblkAddrs = append(ea.dblkAddrs, r.addr())
	}
	for i := 0; i < nsblk; i++ {
		ea.sblkAddrs = append(ea.sblkAddrs, r.addr())
	}
	return ea, r.err
}

// lookupExtArray finds the chunk at scaled: the unlimited dimension's
// coordinate first, then the others in order, counted over the fixed
// maximum dimensions.
func (d *dataset) lookupExtArray(scaled []uint64) (chunkLoc, error) {
	d.eaOnce.Do(func() { d.ea, d.eaErr = d.loadExtArray() })
	if d.eaErr != nil {
		return chunkLoc{}, d.eaErr
	}
	ea := d.ea
	none := chunkLoc{addr: undef}
	if ea.iblock == undef {
		return none, nil
	}
	unlim := 0
	for i, m := range d.maxDims {
		if m == undef {
			unlim = i
			break
		}
	}
	g := d.grid(true)
	sw := make([]uint64, 0, len(scaled))
	gs := make([]uint64, 0, len(g))
	sw = append(sw, scaled[unlim])
	gs = append(gs, g[unlim])
	for i := range scaled {
		if i != unlim {
			sw = append(sw, scaled[i])
			gs = append(gs, g[i])
		}
	}
	i := linear(sw, gs)
	if i < uint64(ea.idxElems) {
		return d.entry(ea.elems[i]), nil
	}
	i -= uint64(ea.idxElems)
	s := bits.Len64(i/uint64(ea.dblkMin)+1) - 1
	if s >= len(ea.sblks) {
		return none, nil
	}
	sb := ea.sblks[s]
	rel := i - sb.startIdx
	k, within := rel/sb.dblkElems, rel%sb.dblkElems
	h := d.h
	var dblk uint64
	if s < ea.iblockSB {
		j := sb.startDblk + k
		if j >= uint64(len(ea.dblkAddrs)) {
			return none, nil
		}
		dblk = ea.dblkAddrs[j]
	} else {
		j := s - ea.iblockSB
		if j >= len(ea.sblkAddrs) || ea.sblkAddrs[j] == undef {
			return none, nil
		}
		saddr := ea.sblkAddrs[j]
		prefix := uint64(6 + h.offSize + ea.arrOff)
		paged := sb.dblkElems > 1<<ea.pageBits
		if paged {
			npages := sb.dblkElems >> ea.pageBits
			prefix += sb.ndblks * ((npages + 7) / 8)
		}
		if k >= sb.ndblks {
			return none, nil
		}
		ab, err := h.readAt(saddr, int64(prefix)+int64(k+1)*int64(h.offSize), "extensible array super block")
		if err != nil {
			return chunkLoc{}, err
		}
		if !bytes.HasPrefix(ab, []byte("EASB")) {
			return chunkLoc{}, errorf("%s: extensible array super block has no EASB signature", d.path)
		}
		dblk = h.newReader(ab[prefix+k*uint64(h.offSize):]).addr()
	}
	if dblk == undef {
		return none, nil
	}
	prefix := uint64(6 + h.offSize + ea.arrOff)
	es := uint64(ea.elemSize)
	at := prefix + within*es
	if sb.dblkElems > 1<<ea.pageBits {
		page := uint64(1) << ea.pageBits
		prefix += 4 // the prefix's checksum
		at = prefix + (within/page)*(page*es+4) + (within%page)*es
	}
	e, err := h.readAt(dblk+at, int64(es), "extensible array entry")
	if err != nil {
		return chunkLoc{}, err
	}
	return d.entry(e), nil
}
