package nifti

import (
	"fmt"
	"math"

	"vastview/loader"
	"vastview/loader/internal/rawvol"
)

// sampleType is a NIfTI datatype this reader supports: its sample type and
// the number of interleaved channels per voxel.
type sampleType struct {
	dtype    loader.DType
	channels int
}

var sampleTypes = map[int]sampleType{
	2:    {loader.Uint8, 1},
	4:    {loader.Int16, 1},
	8:    {loader.Int32, 1},
	16:   {loader.Float32, 1},
	64:   {loader.Float64, 1},
	256:  {loader.Int8, 1},
	512:  {loader.Uint16, 1},
	768:  {loader.Uint32, 1},
	1024: {loader.Int64, 1},
	1280: {loader.Uint64, 1},
	128:  {loader.Uint8, 3}, // RGB24
	2304: {loader.Uint8, 4}, // RGBA32
}

var unsupportedTypes = map[int]string{
	0: "datatype 0 (unknown)", 1: "1-bit samples", 32: "complex samples",
	1536: "128-bit float samples", 1792: "complex samples", 2048: "complex samples",
}

// layout is the array a header describes, as this reader presents it.
type layout struct {
	meta        *loader.Meta
	interleaved bool
	dataBytes   int64
}

// voxelOffset returns the header's vox_offset as a byte count. In a single
// file an offset inside the header (often 0, from careless writers) means
// the data follows the header and its 4 extension bytes, as niftilib reads it.
func (h *header) voxelOffset() (int64, error) {
	v := h.voxOffset
	if math.IsNaN(v) || v < 0 || v > 1<<53 || v != math.Trunc(v) {
		return 0, fmt.Errorf("vox_offset %v is not a byte offset", v)
	}
	min := float64(size1 + 4)
	if h.version == 2 {
		min = size2 + 4
	}
	if h.single && v < min {
		v = min
	}
	return int64(v), nil
}

// sizes returns x, y, z, t, c from dim, checking them.
func (h *header) sizes() ([5]int, error) {
	var s [5]int
	nd := h.dim[0]
	if nd < 1 || nd > 7 {
		return s, fmt.Errorf("dim[0] is %d, not 1..7", nd)
	}
	if nd == 1 {
		return s, &loader.UnsupportedError{Format: "nifti", Feature: "1-D data"}
	}
	for i := 1; i <= 7; i++ {
		v := int64(1)
		if int64(i) <= nd {
			v = h.dim[i]
		}
		if v < 1 || v > 1<<40 {
			return s, fmt.Errorf("dim[%d] is %d", i, v)
		}
		if i >= 6 && v > 1 {
			return s, &loader.UnsupportedError{Format: "nifti", Feature: "6-D and 7-D data"}
		}
		if i <= 5 {
			s[i-1] = int(v)
		}
	}
	return s, nil
}

// axisSpec is one presented axis: its letter, length, and pixdim index (0: none).
type axisSpec struct {
	letter byte
	size   int
	pixdim int
}

// axesFor returns the presented axes in storage order for the sizes
// x, y, z, t, c of an ndim-dimensional array with the given interleaved
// channels per voxel.
func axesFor(ndim int64, s [5]int, channels int) ([]axisSpec, error) {
	x, y, z, t, c := s[0], s[1], s[2], s[3], s[4]
	var ax []axisSpec
	if c > 1 {
		if channels > 1 {
			return nil, &loader.UnsupportedError{Format: "nifti", Feature: "colour samples with a fifth dimension"}
		}
		ax = append(ax, axisSpec{'C', c, 0})
	}
	if ndim >= 4 && (c == 1 || t > 1) {
		ax = append(ax, axisSpec{'T', t, 4})
	}
	if ndim >= 3 {
		ax = append(ax, axisSpec{'Z', z, 3})
	}
	if channels > 1 {
		ax = append(ax, axisSpec{'C', channels, 0})
	}
	return append(ax, axisSpec{'Y', y, 2}, axisSpec{'X', x, 1}), nil
}

// buildLayout turns a header into the presented array.
func buildLayout(h *header) (*layout, error) {
	st, ok := sampleTypes[h.datatype]
	if !ok {
		feature, known := unsupportedTypes[h.datatype]
		if !known {
			return nil, fmt.Errorf("unknown datatype %d", h.datatype)
		}
		return nil, &loader.UnsupportedError{Format: "nifti", Feature: feature}
	}
	s, err := h.sizes()
	if err != nil {
		return nil, err
	}
	ax, err := axesFor(h.dim[0], s, st.channels)
	if err != nil {
		return nil, err
	}
	n := len(ax)
	axes := make([]byte, n)
	shape := make([]int, n)
	spacing := make([]float64, n)
	units := make([]string, n)
	trans := make([]float64, n)
	origin, hasOrigin := h.origin()
	space, time := h.units()
	for i, a := range ax {
		axes[i], shape[i], spacing[i] = a.letter, a.size, 1
		if a.pixdim > 0 {
			if p := math.Abs(h.pixdim[a.pixdim]); p > 0 && !math.IsInf(p, 0) {
				spacing[i] = p
			}
		}
		switch a.letter {
		case 'X', 'Y', 'Z':
			units[i] = space
			if hasOrigin {
				trans[i] = origin[a.pixdim-1]
			}
		case 'T':
			units[i] = time
		}
	}
	interleaved := st.channels > 1
	m := loader.NewMeta("nifti", string(axes), shape, st.dtype, rawvol.PlaneChunk(shape, interleaved), spacing, units)
	m.Levels[0].Translation = trans
	m.ValueScale = h.valueScale()
	m.Anatomy = h.anatomy()
	total, err := rawvol.ArrayBytes(shape, st.dtype)
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &layout{meta: m, interleaved: interleaved, dataBytes: total}, nil
}

// origin returns the world position of the first voxel (x, y, z), from the
// transform the anatomy uses: the sform, or else the qform.
func (h *header) origin() ([3]float64, bool) {
	var o [3]float64
	switch {
	case h.sformCode != 0:
		o = [3]float64{h.srow[0][3], h.srow[1][3], h.srow[2][3]}
	case h.qformCode != 0:
		o = h.qoffset
	default:
		return o, false
	}
	for _, v := range o {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return [3]float64{}, false
		}
	}
	return o, true
}

// units returns the NGFF names of xyzt_units' space and time units.
func (h *header) units() (space, time string) {
	switch h.xyztUnits & 7 {
	case 1:
		space = "meter"
	case 2:
		space = "millimeter"
	case 3:
		space = "micrometer"
	}
	switch h.xyztUnits & 56 {
	case 8:
		time = "second"
	case 16:
		time = "millisecond"
	case 24:
		time = "microsecond"
	}
	return space, time
}

// valueScale returns scl_slope and scl_inter when they change values.
func (h *header) valueScale() *loader.ValueScale {
	s, i := h.slope, h.inter
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return nil
	}
	if math.IsNaN(i) || math.IsInf(i, 0) {
		i = 0
	}
	if s == 1 && i == 0 {
		return nil
	}
	return &loader.ValueScale{Slope: s, Intercept: i}
}
