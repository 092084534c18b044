package hdf5

import (
	"bytes"
	"sort"
)

// link is one entry of a group: a name and the object header it points to
// (hard links only; soft and external links are skipped).
type link struct {
	name  string
	addr  uint64
	order int64 // creation order when tracked, else -1
}

// maxLinks bounds the links one group may hold.
const maxLinks = 1 << 20

// links lists the hard links of the group whose object header is o, in
// the order of their names (or of creation, when the group tracks it).
func (h *File) links(o *object) ([]link, error) {
	if v, ok := h.linkCache.Load(o.addr); ok {
		return v.([]link), nil
	}
	ls, err := h.readLinks(o)
	if err == nil {
		h.linkCache.Store(o.addr, ls)
	}
	return ls, err
}

// readLinks is links without the cache.
func (h *File) readLinks(o *object) ([]link, error) {
	var out []link
	if m := o.find(msgSymbolTable); m != nil {
		r := h.newReader(m.data)
		bt, heap := r.addr(), r.addr()
		if r.err != nil {
			return nil, errorf("group at %#x: short symbol table message", o.addr)
		}
		return h.symbolTable(bt, heap)
	}
	if o.addr == h.rootAddr && h.rootBTree != 0 && h.rootBTree != undef && o.find(msgLink) == nil && o.find(msgLinkInfo) == nil {
		return h.symbolTable(h.rootBTree, h.rootHeap)
	}
	tracked := false
	for _, m := range o.msgs {
		if m.typ == msgLink {
			l, ok, err := h.parseLink(m.data)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, l)
			}
		}
	}
	if m := o.find(msgLinkInfo); m != nil {
		r := h.newReader(m.data)
		r.u8()
		flags := r.u8()
		if flags&1 != 0 {
			r.u64()
			tracked = true
		}
		heapAddr, nameIdx := r.addr(), r.addr()
		if r.err != nil {
			return nil, errorf("group at %#x: short link info message", o.addr)
		}
		if heapAddr != undef && nameIdx != undef {
			dense, err := h.denseLinks(heapAddr, nameIdx)
			if err != nil {
				return nil, err
			}
			out = append(out, dense...)
		}
	}
	if tracked {
		sort.SliceStable(out, func(i, j int) bool { return out[i].order < out[j].order })
	} else {
		sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	}
	return out, nil
}

// parseLink decodes a link message; ok is false for a soft or external
// link.
func (h *File) parseLink(b []byte) (l link, ok bool, err error) {
	r := h.newReader(b)
	if v := r.u8(); v != 1 {
		return l, false, errorf("link message version %d", v)
	}
	flags := r.u8()
	typ := uint8(0)
	if flags&0x08 != 0 {
		typ = r.u8()
	}
	l.order = -1
	if flags&0x04 != 0 {
		l.order = int64(r.u64())
	}
	if flags&0x10 != 0 {
		r.u8()
	}
	n := int(r.uint(1 << (flags & 3)))
	name := r.bytes(n)
	if r.err != nil || n < 0 {
		return l, false, errorf("link message: name of %d bytes overruns it", n)
	}
	l.name = string(name)
	if typ != 0 {
		return l, false, nil
	}
	l.addr = r.addr()
	if r.err != nil {
		return l, false, errorf("link %q: short message", l.name)
	}
	return l, true, nil
}

// symbolTable lists a version-1 group: a v1 B-tree of symbol table nodes
// whose names are in a local heap.
func (h *File) symbolTable(btree, heapAddr uint64) ([]link, error) {
	heap, err := h.localHeap(heapAddr)
	if err != nil {
		return nil, err
	}
	var out []link
	seen := map[uint64]bool{}
	var walk func(addr uint64, depth int) error
	walk = func(addr uint64, depth int) error {
		if depth > 64 || seen[addr] {
			return errorf("group B-tree at %#x: cycle or too deep", addr)
		}
		seen[addr] = true
		node, err := h.readV1Node(addr, 0, 0)
		if err != nil {
			return err
		}
		for _, c := range node.children {
			if node.level > 0 {
				if err := walk(c, depth+1); err != nil {
					return err
				}
				continue
			}
			ls, err := h.symbolNode(c, heap)
			if err != nil {
				return err
			}
			out = append(out, ls...)
			if len(out) > maxLinks {
				return errorf("group: more than %d links", maxLinks)
			}
		}
		return nil
	}
	if err := walk(btree, 0); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// localHeap returns a local heap's data segment.
func (h *File) localHeap(addr uint64) ([]byte, error) {
	b, err := h.readUpTo(addr, int64(8+2*h.lenSize+h.offSize), "local heap")
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte("HEAP")) {
		return nil, errorf("local heap at %#x: no HEAP signature", addr)
	}
	r := h.newReader(b)
	r.skip(8)
	size := r.length()
	r.length()
	data := r.addr()
	if r.err != nil {
		return nil, errorf("local heap at %#x: truncated", addr)
	}
	return h.readAt(data, int64(min(size, uint64(h.size))), "local heap data")
}

// symbolNode lists the entries of a symbol table node (SNOD).
func (h *File) symbolNode(addr uint64, heap []byte) ([]link, error) {
	head, err := h.readUpTo(addr, 8, "symbol table node")
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(head, []byte("SNOD")) || len(head) < 8 {
		return nil, errorf("symbol table node at %#x: no SNOD signature", addr)
	}
	n := int(head[6]) | int(head[7])<<8
	entry := 2*h.offSize + 24
	b, err := h.readAt(addr+8, int64(n*entry), "symbol table node")
	if err != nil {
		return nil, err
	}
	r := h.newReader(b)
	var out []link
	for i := 0; i < n; i++ {
		nameOff := r.addr()
		obj := r.addr()
		r.skip(24)
		if nameOff >= uint64(len(heap)) {
			return nil, errorf("symbol table node at %#x: name offset %d outside the heap", addr, nameOff)
		}
		name := heap[nameOff:]
		if j := bytes.IndexByte(name, 0); j >= 0 {
			name = name[:j]
		}
		out = append(out, link{name: string(name), addr: obj, order: -1})
	}
	return out, nil
}

// v1Node is a node of a version-1 B-tree: its level, keys (raw, one more
// than children) and child addresses.
type v1Node struct {
	level    int
	keys     [][]byte
	children []uint64
}

// readV1Node reads the v1 B-tree node at addr of the given type (0 group,
// 1 chunk); rank is the chunk index's dimensionality (type 1).
func (h *File) readV1Node(addr uint64, typ, rank int) (*v1Node, error) {
	head, err := h.readUpTo(addr, int64(8+2*h.offSize), "B-tree node")
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(head, []byte("TREE")) || len(head) < 8+2*h.offSize {
		return nil, errorf("B-tree node at %#x: no TREE signature", addr)
	}
	if int(head[4]) != typ {
		return nil, errorf("B-tree node at %#x: type %d, want %d", addr, head[4], typ)
	}
	n := int(head[6]) | int(head[7])<<8
	keySize := h.lenSize
	if typ == 1 {
		keySize = 8 + 8*(rank+1)
	}
	body := int64(n)*int64(keySize+h.offSize) + int64(keySize)
	b, err := h.readAt(addr+uint64(len(head)), body, "B-tree node")
	if err != nil {
		return nil, err
	}
	node := &v1Node{level: int(head[5])}
	r := h.newReader(b)
	for i := 0; i < n; i++ {
		node.keys = append(node.keys, r.bytes(keySize))
		node.children = append(node.children, r.addr())
	}
	node.keys = append(node.keys, r.bytes(keySize))
	return node, r.err
}
