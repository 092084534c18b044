package hdf5

import (
	"bytes"
	"math/bits"
)

// fractalHeap is the header of a fractal heap: enough to find managed
// objects by their heap IDs.
type fractalHeap struct {
	addr          uint64
	idLen         int
	filterLen     int
	maxManaged    uint64
	width         int
	startBlock    uint64
	maxDirect     uint64
	maxHeapBits   int
	rootAddr      uint64
	rootRows      int
	checksumBlock bool
}

// readFractalHeap reads the fractal heap header at addr.
func (h *File) readFractalHeap(addr uint64) (*fractalHeap, error) {
	b, err := h.readUpTo(addr, 256, "fractal heap")
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte("FRHP")) {
		return nil, errorf("fractal heap at %#x: no FRHP signature", addr)
	}
	r := h.newReader(b)
	r.skip(5)
	fh := &fractalHeap{addr: addr}
	fh.idLen = int(r.u16())
	fh.filterLen = int(r.u16())
	flags := r.u8()
	fh.checksumBlock = flags&2 != 0
	fh.maxManaged = uint64(r.u32())
	r.length() // next huge ID
	r.addr()   // huge objects B-tree
	r.length() // free space
	r.addr()   // free space manager
	r.length() // managed space
	r.length() // allocated managed space
	r.length() // direct block allocation iterator
	r.length() // managed objects
	r.length() // huge objects size
	r.length() // huge objects
	r.length() // tiny objects size
	r.length() // tiny objects
	fh.width = int(r.u16())
	fh.startBlock = r.length()
	fh.maxDirect = r.length()
	fh.maxHeapBits = int(r.u16())
	r.u16() // starting rows
	fh.rootAddr = r.addr()
	fh.rootRows = int(r.u16())
	if r.err != nil {
		return nil, errorf("fractal heap at %#x: truncated", addr)
	}
	if fh.filterLen != 0 {
		return nil, unsupported("fractal heap with filters")
	}
	pow2 := func(v uint64) bool { return v != 0 && v&(v-1) == 0 }
	if fh.width == 0 || fh.width > 1<<16 || !pow2(fh.startBlock) || !pow2(fh.maxDirect) || fh.maxDirect < fh.startBlock ||
		fh.maxHeapBits <= 0 || fh.maxHeapBits > 64 || fh.rootRows > 64 || fh.maxDirect > 1<<32 {
		return nil, errorf("fractal heap at %#x: bad geometry", addr)
	}
	return fh, nil
}

// offBytes is the size of a heap offset within IDs and block headers.
func (fh *fractalHeap) offBytes() int { return (fh.maxHeapBits + 7) / 8 }

// rowSize is the size of the blocks of row i.
func (fh *fractalHeap) rowSize(i int) uint64 {
	if i == 0 {
		return fh.startBlock
	}
	return fh.startBlock << (i - 1)
}

// maxDirectRows is the number of rows whose blocks are direct.
func (fh *fractalHeap) maxDirectRows() int {
	return bits.TrailingZeros64(fh.maxDirect) - bits.TrailingZeros64(fh.startBlock) + 2
}

// heapObject returns the fractal heap object that id names (managed
// or tiny; huge objects are refused).
func (h *File) heapObject(fh *fractalHeap, id []byte) ([]byte, error) {
	if len(id) < 1 {
		return nil, errorf("fractal heap: empty heap ID")
	}
	switch (id[0] >> 4) & 3 {
	case 0:
	case 2: // tiny
		n := int(id[0]&0x0f) + 1
		if 1+n > len(id) {
			return nil, errorf("fractal heap: tiny object of %d bytes in an ID of %d", n, len(id))
		}
		return id[1 : 1+n], nil
	default:
		return nil, unsupported("huge fractal heap objects")
	}
	ob := fh.offBytes()
	lb := min((bits.TrailingZeros64(fh.maxDirect)+7)/8, bytesFor(fh.maxManaged))
	if 1+ob+lb > len(id) {
		return nil, errorf("fractal heap: heap ID of %d bytes", len(id))
	}
	off := leUint(id[1 : 1+ob])
	n := leUint(id[1+ob : 1+ob+lb])
	if n > fh.maxManaged || n > fh.maxDirect {
		return nil, errorf("fractal heap: object of %d bytes", n)
	}
	blk, blkOff, err := h.heapBlock(fh, off)
	if err != nil {
		return nil, err
	}
	return h.readAt(blk+(off-blkOff), int64(n), "fractal heap object")
}

// bytesFor is the number of bytes that hold values up to v.
func bytesFor(v uint64) int { return (bits.Len64(v) + 7) / 8 }

// heapBlock finds the direct block holding heap offset off: its address
// and the heap offset it starts at.
func (h *File) heapBlock(fh *fractalHeap, off uint64) (addr, start uint64, err error) {
	if fh.rootRows == 0 {
		if off >= fh.startBlock {
			return 0, 0, errorf("fractal heap: offset %d outside its only block", off)
		}
		return fh.rootAddr, 0, nil
	}
	iaddr, rows := fh.rootAddr, fh.rootRows
	base := uint64(0)
	for depth := 0; depth < 16; depth++ {
		// Find the row and column of off within this indirect block.
		rel := off - base
		row, col := -1, 0
		acc := uint64(0)
		for i := 0; i < rows; i++ {
			span := fh.rowSize(i) * uint64(fh.width)
			if rel < acc+span {
				row = i
				col = int((rel - acc) / fh.rowSize(i))
				acc += uint64(col) * fh.rowSize(i)
				break
			}
			acc += span
		}
		if row < 0 {
			return 0, 0, errorf("fractal heap: offset %d outside the heap", off)
		}
		dRows := min(rows, fh.maxDirectRows())
		entry := row*fh.width + col
		// Entry address: after the block header.
		hdr := 4 + 1 + h.offSize + fh.offBytes()
		var at uint64
		if row < dRows {
			at = uint64(hdr + entry*h.offSize)
		} else {
			at = uint64(hdr + dRows*fh.width*h.offSize + (entry-dRows*fh.width)*h.offSize)
		}
		b, err := h.readAt(iaddr, int64(at)+int64(h.offSize), "fractal heap indirect block")
		if err != nil {
			return 0, 0, err
		}
		if !bytes.HasPrefix(b, []byte("FHIB")) {
			return 0, 0, errorf("fractal heap: indirect block at %#x has no FHIB signature", iaddr)
		}
		child := h.newReader(b[at:]).addr()
		if child == undef {
			return 0, 0, errorf("fractal heap: offset %d in an unallocated block", off)
		}
		if row < dRows {
			return child, base + acc, nil
		}
		// A child indirect block of the row's size.
		size := fh.rowSize(row)
		rows = bits.TrailingZeros64(size) - bits.TrailingZeros64(fh.startBlock*uint64(fh.width)) + 1
		iaddr = child
		base += acc
	}
	return 0, 0, errorf("fractal heap: indirect blocks nested too deep")
}

// v2Records lists every record of the v2 B-tree at addr (type want).
func (h *File) v2Records(addr uint64, want int) ([][]byte, error) {
	b, err := h.readUpTo(addr, int64(16+h.offSize+2+h.lenSize+4), "v2 B-tree")
	if err != nil {
		return nil, err
	}
	t, err := h.readV2Header(addr, b, want)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	budget := 1 << 16
	var walk func(addr uint64, nrec, depth int) error
	walk = func(addr uint64, nrec, depth int) error {
		budget--
		if budget < 0 {
			return errorf("v2 B-tree at %#x: too many nodes", t.addr)
		}
		recs, kids, err := h.v2Node(t, addr, nrec, depth)
		if err != nil {
			return err
		}
		for i := range kids {
			if err := walk(kids[i].addr, kids[i].nrec, depth-1); err != nil {
				return err
			}
			if i < len(recs) {
				out = append(out, recs[i])
			}
		}
		if len(kids) == 0 {
			out = append(out, recs...)
		}
		if len(out) > maxLinks {
			return errorf("v2 B-tree at %#x: too many records", t.addr)
		}
		return nil
	}
	if t.root == undef || t.rootRecs == 0 {
		return nil, nil
	}
	return out, walk(t.root, t.rootRecs, t.depth)
}

// v2Tree is a v2 B-tree header with the node geometry derived from it.
type v2Tree struct {
	addr     uint64
	typ      int
	nodeSize int
	recSize  int
	depth    int
	root     uint64
	rootRecs int
	// maxRecs and cumBytes per depth: records a node of that depth holds,
	// and the size of its "total records below" field.
	maxRecs   []int
	cumBytes  []int
	nrecBytes int
}

func (h *File) readV2Header(addr uint64, b []byte, want int) (*v2Tree, error) {
	if !bytes.HasPrefix(b, []byte("BTHD")) {
		return nil, errorf("v2 B-tree at %#x: no BTHD signature", addr)
	}
	r := h.newReader(b)
	r.skip(5)
	t := &v2Tree{addr: addr}
	t.typ = int(r.u8())
	t.nodeSize = int(r.u32())
	t.recSize = int(r.u16())
	t.depth = int(r.u16())
	r.skip(2)
	t.root = r.addr()
	t.rootRecs = int(r.u16())
	if r.err != nil {
		return nil, errorf("v2 B-tree at %#x: truncated header", addr)
	}
	if t.typ != want {
		return nil, errorf("v2 B-tree at %#x: type %d, want %d", addr, t.typ, want)
	}
	if t.recSize == 0 || t.nodeSize < 10+t.recSize || t.nodeSize > 1<<24 || t.depth > 32 {
		return nil, errorf("v2 B-tree at %#x: bad geometry", addr)
	}
	const prefix = 10
	t.maxRecs = make([]int, t.depth+1)
	t.cumBytes = make([]int, t.depth+1)
	cum := make([]uint64, t.depth+1)
	t.maxRecs[0] = (t.nodeSize - prefix) / t.recSize
	cum[0] = uint64(t.maxRecs[0])
	t.cumBytes[0] = bytesFor(cum[0])
	t.nrecBytes = bytesFor(uint64(t.maxRecs[0]))
	for d := 1; d <= t.depth; d++ {
		ptr := h.offSize + t.nrecBytes
		if d > 1 {
			ptr += t.cumBytes[d-1]
		}
		t.maxRecs[d] = (t.nodeSize - prefix) / (t.recSize + ptr)
		cum[d] = uint64(t.maxRecs[d]+1)*cum[d-1] + uint64(t.maxRecs[d])
		if cum[d] < cum[d-1] {
			cum[d] = ^uint64(0) >> 1
		}
		t.cumBytes[d] = bytesFor(cum[d])
	}
	return t, nil
}

type v2Child struct {
	addr uint64
	nrec int
}

// v2Node reads a node of depth d holding nrec records: the records, and
// for an internal node its nrec+1 children.
func (h *File) v2Node(t *v2Tree, addr uint64, nrec, d int) ([][]byte, []v2Child, error) {
	if d < 0 || nrec > t.maxRecs[max(d, 0)] || nrec < 0 {
		return nil, nil, errorf("v2 B-tree at %#x: node of %d records", t.addr, nrec)
	}
	b, err := h.readAt(addr, int64(t.nodeSize), "v2 B-tree node")
	if err != nil {
		return nil, nil, err
	}
	sig := "BTLF"
	if d > 0 {
		sig = "BTIN"
	}
	if !bytes.HasPrefix(b, []byte(sig)) {
		return nil, nil, errorf("v2 B-tree node at %#x: no %s signature", addr, sig)
	}
	r := h.newReader(b)
	r.skip(6)
	recs := make([][]byte, nrec)
	for i := range recs {
		recs[i] = r.bytes(t.recSize)
	}
	var kids []v2Child
	if d > 0 {
		kids = make([]v2Child, nrec+1)
		for i := range kids {
			kids[i].addr = r.addr()
			kids[i].nrec = int(r.uint(t.nrecBytes))
			if d > 1 {
				r.uint(t.cumBytes[d-1])
			}
		}
	}
	if r.err != nil {
		return nil, nil, errorf("v2 B-tree node at %#x: records overrun the node", addr)
	}
	return recs, kids, nil
}

// denseLinks lists the links of a group stored in a fractal heap, indexed
// by name in a v2 B-tree (type 5).
func (h *File) denseLinks(heapAddr, btree uint64) ([]link, error) {
	fh, err := h.readFractalHeap(heapAddr)
	if err != nil {
		return nil, err
	}
	recs, err := h.v2Records(btree, 5)
	if err != nil {
		return nil, err
	}
	var out []link
	for _, rec := range recs {
		if len(rec) < 4+fh.idLen {
			return nil, errorf("link name index: record of %d bytes", len(rec))
		}
		b, err := h.heapObject(fh, rec[4:4+fh.idLen])
		if err != nil {
			return nil, err
		}
		l, ok, err := h.parseLink(b)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, l)
		}
	}
	return out, nil
}

// globalObject returns object idx of the global heap collection at addr.
func (h *File) globalObject(addr uint64, idx uint32) ([]byte, error) {
	head, err := h.readUpTo(addr, int64(8+h.lenSize), "global heap")
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(head, []byte("GCOL")) {
		return nil, errorf("global heap at %#x: no GCOL signature", addr)
	}
	size := h.newReader(head[8:]).length()
	if size > 1<<30 {
		return nil, errorf("global heap at %#x: %d bytes", addr, size)
	}
	b, err := h.readAt(addr, int64(size), "global heap")
	if err != nil {
		return nil, err
	}
	r := h.newReader(b)
	r.skip(8 + h.lenSize)
	for r.rest() >= 8+h.lenSize {
		id := r.u16()
		r.skip(6)
		n := r.length()
		if id == 0 {
			break
		}
		if n > uint64(r.rest()) {
			return nil, errorf("global heap at %#x: object of %d bytes overruns it", addr, n)
		}
		data := r.bytes(int(n))
		if uint32(id) == idx {
			return data, nil
		}
		r.skip(min(int((8-n%8)%8), r.rest()))
	}
	return nil, errorf("global heap at %#x: no object %d", addr, idx)
}
