package nd2

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unicode/utf16"

	"vastview/base/textutil"
)

// The item types of the LV ("lite variant") encoding of metadata chunks.
const (
	lvBool     = 1
	lvInt32    = 2
	lvUint32   = 3
	lvInt64    = 4
	lvUint64   = 5
	lvDouble   = 6
	lvPointer  = 7
	lvString   = 8
	lvBytes    = 9
	lvLevel    = 11
	lvCompress = 76 // 'L': the rest is deflated LV
)

// Limits on what decoding a metadata chunk may cost.
const (
	maxDepth    = 64       // levels nested
	maxInflated = 64 << 20 // bytes a compressed chunk inflates to
)

// node is one decoded LV item: a scalar, a string, bytes, or a level of
// items (kids, in stored order; list entries have empty names).
type node struct {
	name string
	kind byte
	num  float64 // numeric kinds (and bool as 0/1)
	str  string
	raw  []byte
	kids []*node
}

// get returns the first child of n called name, or nil. A nil n has no
// children.
func (n *node) get(name string) *node {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

// number returns n's numeric value; ok is false when n is nil or not a
// number.
func (n *node) number() (v float64, ok bool) {
	if n == nil {
		return 0, false
	}
	switch n.kind {
	case lvBool, lvInt32, lvUint32, lvInt64, lvUint64, lvDouble:
		return n.num, true
	}
	return 0, false
}

// float returns the number called name in n, or def.
func (n *node) float(name string, def float64) float64 {
	if v, ok := n.get(name).number(); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v
	}
	return def
}

// count returns the number called name in n as a count in [0, max], or
// -1 when it is missing or out of range.
func (n *node) count(name string, max int) int {
	v, ok := n.get(name).number()
	if !ok || v < 0 || v > float64(max) || v != math.Trunc(v) {
		return -1
	}
	return int(v)
}

// text returns the string called name in n, or "".
func (n *node) text(name string) string {
	if k := n.get(name); k != nil && k.kind == lvString {
		return k.str
	}
	return ""
}

// decodeLV decodes a metadata chunk: its first item (in practice a level
// named after the structure it holds, "SLxImageAttributes"). Bytes after
// the first item are ignored.
func decodeLV(b []byte) (*node, error) {
	d := lvDecoder{b: b}
	root, err := d.item(0)
	if err != nil {
		return nil, fmt.Errorf("metadata at byte %d: %w", d.pos, err)
	}
	return root, nil
}

type lvDecoder struct {
	b   []byte
	pos int
}

var errShort = fmt.Errorf("ends early")

func (d *lvDecoder) take(n int) ([]byte, error) {
	if n < 0 || n > len(d.b)-d.pos {
		return nil, errShort
	}
	p := d.b[d.pos : d.pos+n]
	d.pos += n
	return p, nil
}

func (d *lvDecoder) u32() (uint32, error) {
	p, err := d.take(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(p), nil
}

func (d *lvDecoder) u64() (uint64, error) {
	p, err := d.take(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(p), nil
}

// utf16z decodes a UTF-16LE string of n bytes, dropping what follows its
// first NUL.
func utf16z(p []byte) string {
	u := make([]uint16, 0, len(p)/2)
	for i := 0; i+1 < len(p); i += 2 {
		c := binary.LittleEndian.Uint16(p[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}

// item decodes the item at d.pos, depth levels deep.
func (d *lvDecoder) item(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("levels nested over %d deep", maxDepth)
	}
	start := d.pos
	hdr, err := d.take(2)
	if err != nil {
		return nil, err
	}
	kind, nameLen := hdr[0], int(hdr[1])
	if kind == lvCompress {
		if _, err := d.take(10); err != nil {
			return nil, err
		}
		return d.inflate(depth)
	}
	p, err := d.take(2 * nameLen)
	if err != nil {
		return nil, err
	}
	n := &node{name: utf16z(p), kind: kind}
	le := binary.LittleEndian
	switch kind {
	case lvBool:
		p, err = d.take(1)
		if err == nil {
			n.num = float64(min(p[0], 1))
		}
	case lvInt32:
		p, err = d.take(4)
		if err == nil {
			n.num = float64(int32(le.Uint32(p)))
		}
	case lvUint32:
		p, err = d.take(4)
		if err == nil {
			n.num = float64(le.Uint32(p))
		}
	case lvInt64:
		p, err = d.take(8)
		if err == nil {
			n.num = float64(int64(le.Uint64(p)))
		}
	case lvUint64, lvPointer:
		p, err = d.take(8)
		if err == nil {
			n.num = float64(le.Uint64(p))
		}
	case lvDouble:
		p, err = d.take(8)
		if err == nil {
			n.num = math.Float64frombits(le.Uint64(p))
		}
	case lvString:
		s := d.pos
		for {
			p, err = d.take(2)
			if err != nil || p[0] == 0 && p[1] == 0 {
				break
			}
		}
		if err == nil {
			n.str = utf16z(d.b[s:d.pos])
		}
	case lvBytes:
		var size uint64
		if size, err = d.u64(); err == nil {
			if size > uint64(len(d.b)-d.pos) {
				return nil, errShort
			}
			n.raw, err = d.take(int(size))
		}
		if err == nil && looksLV(n.raw) {
			if sub, e := decodeLV(n.raw); e == nil {
				n.kids = []*node{sub}
			}
		}
	case lvLevel:
		err = d.level(n, start, depth)
	default:
		return nil, fmt.Errorf("item %q of unknown type %d", textutil.Clip(n.name), kind)
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

// level decodes the items of level n, whose item began at start: an item
// count, the length from start to the end of the items, the items, then a
// table of their offsets (skipped).
func (d *lvDecoder) level(n *node, start, depth int) error {
	count, err := d.u32()
	if err != nil {
		return err
	}
	length, err := d.u64()
	if err != nil {
		return err
	}
	end := uint64(start) + length
	if length < uint64(d.pos-start) || end > uint64(len(d.b)) {
		return fmt.Errorf("level %q of %d bytes in %d", textutil.Clip(n.name), length, len(d.b)-start)
	}
	// Every item takes at least 2 bytes: a count beyond that is false.
	if uint64(count) > (end-uint64(d.pos))/2 {
		return fmt.Errorf("level %q of %d items in %d bytes", textutil.Clip(n.name), count, end-uint64(d.pos))
	}
	sub := lvDecoder{b: d.b[:end], pos: d.pos}
	n.kids = make([]*node, 0, count)
	for range count {
		k, err := sub.item(depth + 1)
		if err != nil {
			d.pos = sub.pos
			return err
		}
		n.kids = append(n.kids, k)
	}
	d.pos = int(end)
	// The offset table follows; a file cut inside it loses nothing read.
	d.pos = min(len(d.b), d.pos+8*int(count))
	return nil
}

// inflate decodes the deflated LV that fills the rest of d.
func (d *lvDecoder) inflate(depth int) (*node, error) {
	zr, err := zlib.NewReader(bytes.NewReader(d.b[d.pos:]))
	if err != nil {
		return nil, fmt.Errorf("compressed metadata: %v", err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, maxInflated+1))
	if err != nil {
		return nil, fmt.Errorf("compressed metadata: %v", err)
	}
	if len(b) > maxInflated {
		return nil, fmt.Errorf("compressed metadata inflates to over %d bytes", maxInflated)
	}
	d.pos = len(d.b)
	sub := lvDecoder{b: b}
	return sub.item(depth + 1)
}

// looksLV reports whether bytes held in a byte-array item look like LV
// items themselves: a known type and a NUL-terminated name of at least one
// character.
func looksLV(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	if b[0] == lvCompress {
		return true
	}
	if b[0] < lvBool || b[0] > lvLevel || b[0] == 10 || b[1] <= 1 {
		return false
	}
	end := 2 + 2*int(b[1])
	return len(b) >= end && b[end-2] == 0 && b[end-1] == 0
}
