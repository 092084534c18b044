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
	name, flags, dtb, dsb, data, err := h.splitAttribute(b)
	if err != nil || flags&3 != 0 {
		return "", nil, nil, nil, false
	}
	dt, err := parseDatatype(dtb)
	if err != nil {
		return "", nil, nil, nil, false
	}
	ds, err := h.parseDataspace(dsb)
	if err != nil {
		return "", nil, nil, nil, false
	}
	return name, dt, ds, data, true
}
