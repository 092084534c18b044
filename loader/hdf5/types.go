package hdf5

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"vastview/loader"
)

// Datatype classes.
const (
	classFixed  = 0
	classFloat  = 1
	classString = 3
	classVLen   = 9
)

// datatype is a decoded datatype message.
type datatype struct {
	class     int
	size      int
	bigEndian bool
	signed    bool
	vlenStr   bool // a variable-length string
	vlenBase  *datatype
}

// parseDatatype decodes a datatype message.
func parseDatatype(b []byte) (*datatype, error) {
	if len(b) < 8 {
		return nil, errorf("datatype message of %d bytes", len(b))
	}
	dt := &datatype{class: int(b[0] & 0x0f), size: int(binary.LittleEndian.Uint32(b[4:]))}
	f0 := b[1]
	switch dt.class {
	case classFixed:
		dt.bigEndian = f0&1 != 0
		dt.signed = f0&8 != 0
	case classFloat:
		if f0&0x40 != 0 {
			return nil, unsupported("VAX-order floats")
		}
		dt.bigEndian = f0&1 != 0
	case classVLen:
		dt.vlenStr = f0&0x0f == 1
		base, err := parseDatatype(b[8:])
		if err != nil {
			return nil, err
		}
		dt.vlenBase = base
	}
	return dt, nil
}

// dtype is the loader sample type of dt and whether its samples need a
// byte swap.
func (dt *datatype) dtype() (loader.DType, error) {
	switch dt.class {
	case classFixed:
		if d := loader.IntDType(dt.size*8, dt.signed); d != loader.Invalid {
			return d, nil
		}
		return loader.Invalid, unsupported("%d-byte integer samples", dt.size)
	case classFloat:
		switch dt.size {
		case 4:
			return loader.Float32, nil
		case 8:
			return loader.Float64, nil
		}
		return loader.Invalid, unsupported("%d-byte float samples", dt.size)
	}
	return loader.Invalid, unsupported("datatype class %d samples", dt.class)
}

// dataspace is a decoded dataspace message: the current and maximum
// dimensions (max is nil when not given; unlimited is ^0).
type dataspace struct {
	dims, max []uint64
	scalar    bool
}

func (h *File) parseDataspace(b []byte) (*dataspace, error) {
	r := h.newReader(b)
	v := r.u8()
	rank := int(r.u8())
	flags := r.u8()
	ds := &dataspace{}
	switch v {
	case 1:
		r.skip(5)
	case 2:
		if t := r.u8(); t == 0 {
			ds.scalar = true
		}
	default:
		return nil, errorf("dataspace version %d", v)
	}
	if rank > 32 {
		return nil, errorf("dataspace of %d dimensions", rank)
	}
	for i := 0; i < rank; i++ {
		ds.dims = append(ds.dims, r.length())
	}
	if flags&1 != 0 {
		for i := 0; i < rank; i++ {
			ds.max = append(ds.max, r.length())
		}
	}
	if r.err != nil {
		return nil, errorf("dataspace message truncated")
	}
	if rank == 0 && v == 1 {
		ds.scalar = true
	}
	return ds, nil
}

// count is the number of elements.
func (ds *dataspace) count() uint64 {
	n := uint64(1)
	for _, d := range ds.dims {
		if d != 0 && n > math.MaxUint64/d {
			return math.MaxUint64
		}
		n *= d
	}
	return n
}

// Attr is an attribute's value: numbers or a string.
type Attr struct {
	Nums   []float64
	Str    string
	IsText bool
}

// Text returns the attribute as text: the string, or the numbers
// separated by spaces.
func (a Attr) Text() string {
	if a.IsText {
		return a.Str
	}
	s := make([]string, len(a.Nums))
	for i, v := range a.Nums {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, " ")
}

// splitAttribute splits an attribute message into its name, its flags
// (bits 0 and 1: the datatype, the dataspace shared), the encoded datatype
// and dataspace, and the value.
func (h *File) splitAttribute(b []byte) (name string, flags byte, dtb, dsb, value []byte, err error) {
	r := h.newReader(b)
	v := r.u8()
	flags = r.u8()
	nameLen := int(r.u16())
	dtLen := int(r.u16())
	dsLen := int(r.u16())
	pad := func(n int) int { return n }
	switch v {
	case 1:
		pad = func(n int) int { return (n + 7) &^ 7 }
	case 2:
	case 3:
		r.u8()
	default:
		return "", 0, nil, nil, nil, errorf("attribute message version %d", v)
	}
	nb := r.bytes(pad(nameLen))
	dtb = r.bytes(pad(dtLen))
	dsb = r.bytes(pad(dsLen))
	if r.err != nil || len(nb) < nameLen || len(dtb) < dtLen || len(dsb) < dsLen {
		return "", 0, nil, nil, nil, errorf("attribute message truncated")
	}
	return strings.TrimRight(string(nb[:nameLen]), "\x00"), flags, dtb[:dtLen], dsb[:dsLen], r.b[r.off:], nil
}

// parseAttribute decodes an attribute message: its name and value.
// Values of types other than numbers and strings are returned as ok
// false.
func (h *File) parseAttribute(b []byte) (name string, a Attr, ok bool, err error) {
	name, flags, dtb, dsb, data, err := h.splitAttribute(b)
	if err != nil {
		return "", a, false, err
	}
	if flags&3 != 0 { // shared datatype or dataspace
		return name, a, false, nil
	}
	dt, err := parseDatatype(dtb)
	if err != nil {
		return name, a, false, nil
	}
	ds, err := h.parseDataspace(dsb)
	if err != nil {
		return name, a, false, err
	}
	n := ds.count()
	switch dt.class {
	case classFixed, classFloat:
		if dt.size != 1 && dt.size != 2 && dt.size != 4 && dt.size != 8 {
			return name, a, false, nil
		}
		if n > uint64(len(data)/dt.size) {
			return name, a, false, errorf("attribute %q: %d values overrun the message", name, n)
		}
		for i := 0; i < int(n); i++ {
			a.Nums = append(a.Nums, dt.value(data[i*dt.size:]))
		}
		return name, a, true, nil
	case classString:
		if dt.size == 0 || n > uint64(len(data)/dt.size) {
			return name, a, false, errorf("attribute %q: string overruns the message", name)
		}
		var sb strings.Builder
		for i := 0; i < int(n); i++ {
			s := data[i*dt.size : (i+1)*dt.size]
			if j := bytes.IndexByte(s, 0); j >= 0 {
				s = s[:j]
			}
			sb.Write(s)
		}
		a.Str, a.IsText = strings.TrimRight(sb.String(), " "), true
		return name, a, true, nil
	case classVLen:
		if !dt.vlenStr {
			return name, a, false, nil
		}
		el := 4 + h.offSize + 4
		if n > uint64(len(data)/el) {
			return name, a, false, errorf("attribute %q: string overruns the message", name)
		}
		var parts []string
		for i := 0; i < int(n); i++ {
			er := h.newReader(data[i*el:])
			size := er.u32()
			coll := er.addr()
			idx := er.u32()
			if size == 0 || coll == undef || coll == 0 {
				parts = append(parts, "")
				continue
			}
			obj, err := h.globalObject(coll, idx)
			if err != nil {
				return name, a, false, err
			}
			if uint64(size) < uint64(len(obj)) {
				obj = obj[:size]
			}
			parts = append(parts, strings.TrimRight(string(obj), "\x00"))
		}
		a.Str, a.IsText = strings.Join(parts, " "), true
		return name, a, true, nil
	}
	return name, a, false, nil
}

// value decodes one number of type dt from b.
func (dt *datatype) value(b []byte) float64 {
	var u uint64
	if dt.bigEndian {
		for i := 0; i < dt.size; i++ {
			u = u<<8 | uint64(b[i])
		}
	} else {
		u = leUint(b[:dt.size])
	}
	if dt.class == classFloat {
		if dt.size == 4 {
			return float64(math.Float32frombits(uint32(u)))
		}
		if dt.size == 8 {
			return math.Float64frombits(u)
		}
		return 0
	}
	if dt.signed {
		shift := 64 - 8*dt.size
		return float64(int64(u<<shift) >> shift)
	}
	return float64(u)
}

// attrs reads the attributes of object o (compact attribute messages, and
// dense ones in a fractal heap).
func (h *File) attrs(o *object) (map[string]Attr, error) {
	out := map[string]Attr{}
	for _, m := range o.msgs {
		if m.typ != msgAttribute {
			continue
		}
		name, a, ok, err := h.parseAttribute(m.data)
		if err != nil {
			return nil, err
		}
		if ok {
			out[name] = a
		}
	}
	if m := o.find(msgAttrInfo); m != nil {
		r := h.newReader(m.data)
		r.u8()
		flags := r.u8()
		if flags&1 != 0 {
			r.u16()
		}
		heapAddr, nameIdx := r.addr(), r.addr()
		if r.err == nil && heapAddr != undef && nameIdx != undef {
			fh, err := h.readFractalHeap(heapAddr)
			if err != nil {
				return nil, err
			}
			recs, err := h.v2Records(nameIdx, 8)
			if err != nil {
				return nil, err
			}
			for _, rec := range recs {
				if len(rec) < 8 {
					continue
				}
				b, err := h.heapObject(fh, rec[:8])
				if err != nil {
					return nil, err
				}
				name, a, ok, err := h.parseAttribute(b)
				if err != nil {
					return nil, err
				}
				if ok {
					out[name] = a
				}
			}
		}
	}
	return out, nil
}
