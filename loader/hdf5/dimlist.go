package hdf5

import (
	"strings"
)

// dimensionAxes names the dataset's axes from its dimension scales
// (DIMENSION_LIST, as netCDF-4 and h5py's dims write): each dimension's
// first scale's NAME attribute, "x", "y", "z", "t"/"time", "c"/"channel"
// (any case). It returns "" unless every dimension is named so and the
// order ends in YX.
func (d *dataset) dimensionAxes() string {
	if d.obj == nil {
		return ""
	}
	h := d.h
	for _, m := range d.obj.msgs {
		if m.typ != msgAttribute {
			continue
		}
		name, dt, ds, data, ok := h.rawAttribute(m.data)
		if !ok || name != "DIMENSION_LIST" || dt.class != classVLen || dt.vlenStr || dt.vlenBase == nil ||
			dt.vlenBase.class != 7 || dt.vlenBase.size != h.offSize {
			continue
		}
		n := ds.count()
		el := 4 + h.offSize + 4
		if n != uint64(len(d.dims)) || uint64(len(data)) < n*uint64(el) {
			return ""
		}
		var axes strings.Builder
		for i := 0; i < int(n); i++ {
			r := h.newReader(data[i*el:])
			count := r.u32()
			coll := r.addr()
			idx := r.u32()
			if count == 0 || coll == undef {
				return ""
			}
			refs, err := h.globalObject(coll, idx)
			if err != nil || len(refs) < h.offSize {
				return ""
			}
			o, err := h.readObject(h.newReader(refs).addr())
			if err != nil {
				return ""
			}
			a, err := h.attrs(o)
			if err != nil {
				return ""
			}
			letter := map[string]string{"x": "X", "y": "Y", "z": "Z", "t": "T", "time": "T", "c": "C", "channel": "C"}[strings.ToLower(strings.TrimSpace(a["NAME"].Str))]
			if letter == "" {
				return ""
			}
			axes.WriteString(letter)
		}
		if validAxes(axes.String()) {
			return axes.String()
		}
		return ""
	}
	return ""
}

// rawAttribute splits an attribute message into its name, datatype,
// dataspace and raw value.
func (h *File) rawAttribute(b []byte) (string, *datatype, *dataspace, []byte, bool) {
	r := h.newReader(b)
	v := r.u8()
	flags := r.u8()
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
		return "", nil, nil, nil, false
	}
	nb := r.bytes(pad(nameLen))
	dtb := r.bytes(pad(dtLen))
	dsb := r.bytes(pad(dsLen))
	if r.err != nil || flags&3 != 0 || len(nb) < nameLen || len(dtb) < dtLen || len(dsb) < dsLen {
		return "", nil, nil, nil, false
	}
	dt, err := parseDatatype(dtb[:dtLen])
	if err != nil {
		return "", nil, nil, nil, false
	}
	ds, err := h.parseDataspace(dsb[:dsLen])
	if err != nil {
		return "", nil, nil, nil, false
	}
	return strings.TrimRight(string(nb[:nameLen]), "\x00"), dt, ds, r.b[r.off:], true
}
