package hdf5

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"vastview/loader"
)

// Storage layouts.
const (
	layoutCompact    = 0
	layoutContiguous = 1
	layoutChunked    = 2
)

// Chunk index types (layout message version 4).
const (
	indexBTree1   = 0 // version-3 layout: a v1 B-tree
	indexSingle   = 1
	indexImplicit = 2
	indexFixed    = 3
	indexExtArray = 4
	indexBTree2   = 5
)

// dataset is an opened dataset: its shape, type and where its samples are.
type dataset struct {
	h       *File
	path    string
	dims    []uint64
	maxDims []uint64
	dt      *datatype
	dtype   loader.DType
	attrs   map[string]Attr

	layout  int
	compact []byte
	addr    uint64 // contiguous data, or the chunk index
	size    uint64 // contiguous size
	chunk   []uint64
	index   int
	filters []filter
	// Index parameters.
	singleSize  uint64
	singleMask  uint32
	eaParams    [5]uint8
	locs        sync.Map // linear chunk index -> chunkLoc
	ea          *extArray
	eaOnce      sync.Once
	eaErr       error
	obj         *object
	fill        []byte // one element of fill value, or nil for zero
	filteredLen int    // bytes of a filtered chunk's size in index entries
	bad         error  // why the dataset's header messages cannot be read
}

// chunkLoc is where one chunk is stored (addr undef: not stored).
type chunkLoc struct {
	addr uint64
	size uint64
	mask uint32
}

// filter is one filter of a pipeline.
type filter struct {
	id    uint16
	flags uint16
	cd    []uint32
}

// maxRank bounds the dimensions of a dataset.
const maxRank = 32

// openDataset reads a dataset's header messages; ok is false when o is
// not a dataset.
func (h *File) openDataset(o *object, path string) (*dataset, bool, error) {
	mt, ms, ml := o.find(msgDatatype), o.find(msgDataspace), o.find(msgLayout)
	if mt == nil || ms == nil || ml == nil {
		return nil, false, nil
	}
	d := &dataset{h: h, path: path}
	var err error
	if d.dt, err = parseDatatype(mt.data); err != nil {
		return nil, true, fmt.Errorf("%s: %w", path, err)
	}
	ds, err := h.parseDataspace(ms.data)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", path, err)
	}
	d.dims, d.maxDims = ds.dims, ds.max
	if err := d.parseLayout(ml.data); err != nil {
		return nil, true, fmt.Errorf("%s: %w", path, err)
	}
	if m := o.find(msgFilters); m != nil {
		if d.filters, err = parseFilters(m.data); err != nil {
			return nil, true, fmt.Errorf("%s: %w", path, err)
		}
	}
	if m := o.find(msgFill); m != nil {
		d.fill = parseFill(m.data, d.dt.size)
	}
	return d, true, nil
}

// parseFill returns the fill value of a fill value message (versions 1 to
// 3), nil when it is undefined or zero.
func parseFill(b []byte, size int) []byte {
	if len(b) < 2 {
		return nil
	}
	var val []byte
	switch b[0] {
	case 1, 2:
		if len(b) < 4 || b[3] == 0 {
			return nil
		}
		if len(b) >= 8 {
			n := int(binary.LittleEndian.Uint32(b[4:]))
			if n == size && len(b) >= 8+n {
				val = b[8 : 8+n]
			}
		}
	case 3:
		if b[1]&0x20 == 0 || len(b) < 6 {
			return nil
		}
		n := int(binary.LittleEndian.Uint32(b[2:]))
		if n == size && len(b) >= 6+n {
			val = b[6 : 6+n]
		}
	}
	if val == nil || bytes.Count(val, []byte{0}) == len(val) {
		return nil
	}
	return val
}

// parseLayout decodes a data layout message (versions 1 to 4).
func (d *dataset) parseLayout(b []byte) error {
	h := d.h
	r := h.newReader(b)
	v := r.u8()
	switch v {
	case 1, 2:
		rank := int(r.u8())
		d.layout = int(r.u8())
		r.skip(5)
		if d.layout != layoutCompact {
			d.addr = r.addr()
		}
		if rank > maxRank+1 {
			return errorf("layout of %d dimensions", rank)
		}
		dims := make([]uint64, rank)
		for i := range dims {
			dims[i] = uint64(r.u32())
		}
		switch d.layout {
		case layoutCompact:
			n := int(r.u32())
			d.compact = r.bytes(n)
		case layoutContiguous:
			d.size = uint64(d.dt.size)
			for _, x := range dims[:max(rank-1, 0)] {
				d.size *= x
			}
		case layoutChunked:
			if rank < 2 {
				return errorf("chunked layout of %d dimensions", rank)
			}
			d.chunk = dims[:rank-1]
			d.index = indexBTree1
		}
	case 3, 4:
		d.layout = int(r.u8())
		switch d.layout {
		case layoutCompact:
			n := int(r.u16())
			d.compact = r.bytes(n)
		case layoutContiguous:
			d.addr = r.addr()
			d.size = r.length()
		case layoutChunked:
			if v == 3 {
				rank := int(r.u8())
				d.addr = r.addr()
				if rank < 2 || rank > maxRank+1 {
					return errorf("chunked layout of %d dimensions", rank)
				}
				for i := 0; i < rank; i++ {
					d.chunk = append(d.chunk, uint64(r.u32()))
				}
				d.chunk = d.chunk[:rank-1]
				d.index = indexBTree1
				break
			}
			flags := r.u8()
			rank := int(r.u8())
			enc := int(r.u8())
			if rank < 2 || rank > maxRank+1 || enc < 1 || enc > 8 {
				return errorf("chunked layout of %d dimensions, %d-byte sizes", rank, enc)
			}
			for i := 0; i < rank; i++ {
				d.chunk = append(d.chunk, r.uint(enc))
			}
			d.chunk = d.chunk[:rank-1]
			d.index = int(r.u8())
			switch d.index {
			case indexSingle:
				if flags&2 != 0 {
					d.singleSize = r.length()
					d.singleMask = r.u32()
				}
			case indexImplicit:
			case indexFixed:
				r.u8()
			case indexExtArray:
				copy(d.eaParams[:], r.bytes(5))
			case indexBTree2:
				r.skip(6)
			default:
				return unsupported("chunk index type %d", d.index)
			}
			d.addr = r.addr()
		default:
			return unsupported("storage layout class %d", d.layout)
		}
	default:
		return unsupported("data layout message version %d", v)
	}
	if r.err != nil {
		return errorf("data layout message truncated")
	}
	if d.layout == layoutChunked {
		if len(d.chunk) != len(d.dims) {
			return errorf("chunks of %d dimensions for a dataset of %d", len(d.chunk), len(d.dims))
		}
		n := uint64(d.dt.size)
		for _, c := range d.chunk {
			if c == 0 {
				return errorf("chunks of %s samples", dimsText(d.chunk))
			}
			if c > maxChunkBytes || n*c > maxChunkBytes {
				return errorf("chunks of %s samples of %d bytes, %s each: more than the %d GiB a chunk may hold",
					dimsText(d.chunk), d.dt.size, chunkSize(d.chunk, d.dt.size), maxChunkBytes>>30)
			}
			n *= c
		}
		d.filteredLen = min(1+(bitsLen(n)-1+8)/8, 8)
	}
	return nil
}

// maxChunkBytes bounds a decoded chunk, as the loader bounds every
// source's chunks.
const maxChunkBytes = 1 << 31

// dimsText writes dims as "1000×2000×960".
func dimsText(dims []uint64) string {
	var b strings.Builder
	for i, v := range dims {
		if i > 0 {
			b.WriteString("×")
		}
		b.WriteString(strconv.FormatUint(v, 10))
	}
	return b.String()
}

// chunkSize is the byte size of a chunk of dims samples of es bytes, in
// decimal units ("3.84 GB"), computed in floating point so that it cannot
// overflow.
func chunkSize(dims []uint64, es int) string {
	f := float64(es)
	for _, v := range dims {
		f *= float64(v)
	}
	for _, u := range []string{"bytes", "kB", "MB", "GB", "TB", "PB"} {
		if f < 1000 || u == "PB" {
			return fmt.Sprintf("%.3g %s", f, u)
		}
		f /= 1000
	}
	return ""
}

func bitsLen(v uint64) int {
	n := 0
	for v != 0 {
		n++
		v >>= 1
	}
	return n
}

// parseFilters decodes a filter pipeline message (versions 1 and 2).
func parseFilters(b []byte) ([]filter, error) {
	if len(b) < 2 {
		return nil, errorf("filter pipeline message truncated")
	}
	v, n := b[0], int(b[1])
	r := &reader{b: b, off: 2}
	if v == 1 {
		r.skip(6)
	} else if v != 2 {
		return nil, errorf("filter pipeline version %d", v)
	}
	var out []filter
	for i := 0; i < n; i++ {
		var f filter
		f.id = r.u16()
		nameLen := 0
		if v == 1 || f.id >= 256 {
			nameLen = int(r.u16())
		}
		f.flags = r.u16()
		nv := int(r.u16())
		if v == 1 {
			r.skip((nameLen + 7) &^ 7)
		} else {
			r.skip(nameLen)
		}
		if nv > 256 {
			return nil, errorf("filter %d: %d parameters", f.id, nv)
		}
		for j := 0; j < nv; j++ {
			f.cd = append(f.cd, r.u32())
		}
		if v == 1 && nv%2 == 1 {
			r.skip(4)
		}
		if r.err != nil {
			return nil, errorf("filter pipeline message truncated")
		}
		out = append(out, f)
	}
	return out, nil
}

// chunkBytes is the size of one decoded chunk.
func (d *dataset) chunkBytes() int {
	n := d.dt.size
	for _, c := range d.chunk {
		n *= int(c)
	}
	return n
}

// grid is the number of chunks along each dimension, over dims (or over
// the maximum dimensions when fixed, as the fixed array and implicit
// indexes count).
func (d *dataset) grid(useMax bool) []uint64 {
	g := make([]uint64, len(d.dims))
	for i, n := range d.dims {
		if useMax && d.maxDims != nil && d.maxDims[i] != undef {
			n = d.maxDims[i]
		}
		g[i] = (n + d.chunk[i] - 1) / d.chunk[i]
	}
	return g
}

// linear is the row-major index of scaled chunk coordinates in grid g.
func linear(scaled, g []uint64) uint64 {
	var n uint64
	for i, s := range scaled {
		n = n*g[i] + s
	}
	return n
}

// locate finds chunk scaled (chunk coordinates) in the index, once.
func (d *dataset) locate(scaled []uint64) (chunkLoc, error) {
	key := linear(scaled, d.grid(false))
	if v, ok := d.locs.Load(key); ok {
		return v.(chunkLoc), nil
	}
	loc, err := d.lookup(scaled)
	if err != nil {
		return loc, err
	}
	d.locs.Store(key, loc)
	return loc, nil
}

func (d *dataset) lookup(scaled []uint64) (chunkLoc, error) {
	none := chunkLoc{addr: undef}
	if d.addr == undef {
		return none, nil
	}
	full := uint64(d.chunkBytes())
	switch d.index {
	case indexBTree1:
		return d.lookupBTree1(scaled)
	case indexSingle:
		if d.singleSize != 0 {
			return chunkLoc{d.addr, d.singleSize, d.singleMask}, nil
		}
		return chunkLoc{d.addr, full, 0}, nil
	case indexImplicit:
		i := linear(scaled, d.grid(true))
		return chunkLoc{d.addr + i*full, full, 0}, nil
	case indexFixed:
		return d.lookupFixed(linear(scaled, d.grid(true)))
	case indexExtArray:
		return d.lookupExtArray(scaled)
	case indexBTree2:
		return d.lookupBTree2(scaled)
	}
	return none, unsupported("chunk index type %d", d.index)
}

// lookupBTree1 descends the v1 B-tree of chunks to the chunk at scaled.
func (d *dataset) lookupBTree1(scaled []uint64) (chunkLoc, error) {
	rank := len(d.dims)
	want := make([]uint64, rank)
	for i := range want {
		want[i] = scaled[i] * d.chunk[i]
	}
	keyOff := func(k []byte, i int) uint64 { return binary.LittleEndian.Uint64(k[8+8*i:]) }
	cmp := func(k []byte) int {
		for i := 0; i < rank; i++ {
			o := keyOff(k, i)
			if o < want[i] {
				return -1
			}
			if o > want[i] {
				return 1
			}
		}
		return 0
	}
	addr := d.addr
	for depth := 0; depth < 64; depth++ {
		node, err := d.h.readV1Node(addr, 1, rank)
		if err != nil {
			return chunkLoc{}, err
		}
		// The last child whose left key is ≤ want.
		j := -1
		for i := range node.children {
			if cmp(node.keys[i]) <= 0 {
				j = i
			} else {
				break
			}
		}
		if j < 0 {
			return chunkLoc{addr: undef}, nil
		}
		if node.level == 0 {
			k := node.keys[j]
			if cmp(k) != 0 {
				return chunkLoc{addr: undef}, nil
			}
			return chunkLoc{node.children[j], uint64(binary.LittleEndian.Uint32(k)), binary.LittleEndian.Uint32(k[4:])}, nil
		}
		addr = node.children[j]
	}
	return chunkLoc{}, errorf("%s: chunk B-tree deeper than 64 levels", d.path)
}

// entry decodes one chunk index entry of the fixed or extensible array
// (address, and for filtered chunks their size and filter mask).
func (d *dataset) entry(b []byte) chunkLoc {
	r := d.h.newReader(b)
	loc := chunkLoc{addr: r.addr(), size: uint64(d.chunkBytes())}
	if len(d.filters) > 0 {
		loc.size = r.uint(d.filteredLen)
		loc.mask = r.u32()
	}
	return loc
}

// entrySize is the size of one array index entry.
func (d *dataset) entrySize() int {
	if len(d.filters) > 0 {
		return d.h.offSize + d.filteredLen + 4
	}
	return d.h.offSize
}

// lookupFixed reads entry i of the fixed array index.
func (d *dataset) lookupFixed(i uint64) (chunkLoc, error) {
	h := d.h
	b, err := h.readUpTo(d.addr, int64(12+h.lenSize+h.offSize), "fixed array")
	if err != nil {
		return chunkLoc{}, err
	}
	if !bytes.HasPrefix(b, []byte("FAHD")) {
		return chunkLoc{}, errorf("%s: fixed array has no FAHD signature", d.path)
	}
	r := h.newReader(b)
	r.skip(6)
	esz := int(r.u8())
	pageBits := int(r.u8())
	n := r.length()
	dblk := r.addr()
	if r.err != nil || esz != d.entrySize() || pageBits > 32 {
		return chunkLoc{}, errorf("%s: fixed array header", d.path)
	}
	if i >= n || dblk == undef {
		return chunkLoc{addr: undef}, nil
	}
	prefix := uint64(6 + h.offSize)
	page := uint64(1) << pageBits
	at := prefix + i*uint64(esz)
	if n > page {
		npages := (n + page - 1) / page
		prefix += (npages+7)/8 + 4
		p := i / page
		at = prefix + p*(page*uint64(esz)+4) + (i%page)*uint64(esz)
	}
	e, err := h.readAt(dblk+at, int64(esz), "fixed array entry")
	if err != nil {
		return chunkLoc{}, err
	}
	return d.entry(e), nil
}

// lookupBTree2 descends the v2 B-tree of chunks (record type 10 or 11).
func (d *dataset) lookupBTree2(scaled []uint64) (chunkLoc, error) {
	h := d.h
	b, err := h.readUpTo(d.addr, int64(16+h.offSize+2+h.lenSize+4), "v2 B-tree")
	if err != nil {
		return chunkLoc{}, err
	}
	want := 10
	if len(d.filters) > 0 {
		want = 11
	}
	t, err := h.readV2Header(d.addr, b, want)
	if err != nil {
		return chunkLoc{}, err
	}
	rank := len(d.dims)
	off := h.offSize
	if want == 11 {
		off += d.filteredLen + 4
	}
	if t.recSize < off+8*rank {
		return chunkLoc{}, errorf("%s: chunk records of %d bytes", d.path, t.recSize)
	}
	cmp := func(rec []byte) int {
		for i := 0; i < rank; i++ {
			v := binary.LittleEndian.Uint64(rec[off+8*i:])
			if v < scaled[i] {
				return -1
			}
			if v > scaled[i] {
				return 1
			}
		}
		return 0
	}
	addr, nrec, depth := t.root, t.rootRecs, t.depth
	for steps := 0; addr != undef && steps <= t.depth; steps++ {
		recs, kids, err := h.v2Node(t, addr, nrec, depth)
		if err != nil {
			return chunkLoc{}, err
		}
		j := 0
		for j < len(recs) && cmp(recs[j]) < 0 {
			j++
		}
		if j < len(recs) && cmp(recs[j]) == 0 {
			return d.entry(recs[j]), nil
		}
		if depth == 0 {
			break
		}
		addr, nrec, depth = kids[j].addr, kids[j].nrec, depth-1
	}
	return chunkLoc{addr: undef}, nil
}

// readChunkData reads and decodes the chunk at scaled into out (of
// chunkBytes, little-endian samples). An unstored chunk is the fill value.
func (d *dataset) readChunkData(ctx context.Context, scaled []uint64, out []byte) error {
	loc, err := d.locate(scaled)
	if err != nil {
		return err
	}
	if loc.addr == undef {
		d.fillBuf(out)
		return nil
	}
	if loc.size > 1<<31 {
		return errorf("%s: chunk of %d bytes", d.path, loc.size)
	}
	raw, err := d.h.readAt(loc.addr, int64(loc.size), d.path+": chunk")
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dec, err := d.decode(raw, loc.mask, out)
	if err != nil {
		return fmt.Errorf("%s: chunk %v: %w", d.path, scaled, err)
	}
	if len(dec) != len(out) {
		return errorf("%s: chunk %v decodes to %d bytes, want %d", d.path, scaled, len(dec), len(out))
	}
	if len(out) > 0 && &dec[0] != &out[0] {
		copy(out, dec)
	}
	if d.dt.bigEndian {
		loader.SwapBytes(out, d.dt.size)
	}
	return nil
}

// fillBuf fills b with the fill value.
func (d *dataset) fillBuf(b []byte) {
	if d.fill == nil {
		clear(b)
		return
	}
	for i := 0; i+len(d.fill) <= len(b); i += len(d.fill) {
		copy(b[i:], d.fill)
	}
	if d.dt.bigEndian {
		loader.SwapBytes(b, d.dt.size)
	}
}

// readAttrs reads the dataset's attributes into d.attrs.
func (d *dataset) readAttrs() error {
	if d.attrs != nil || d.obj == nil {
		return nil
	}
	a, err := d.h.attrs(d.obj)
	d.attrs = a
	return err
}
