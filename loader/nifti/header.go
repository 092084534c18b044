package nifti

import (
	"encoding/binary"
	"math"
)

const (
	size1 = 348 // sizeof_hdr of NIfTI-1
	size2 = 540 // sizeof_hdr of NIfTI-2
)

// header holds the fields of a NIfTI-1 or NIfTI-2 header this reader uses.
type header struct {
	version   int  // 1 or 2
	bigEndian bool // byte order of the header and the data
	single    bool // data in the same file ("n+1", "n+2"), not a .img pair
	dim       [8]int64
	datatype  int
	pixdim    [8]float64
	voxOffset float64
	slope     float64
	inter     float64
	xyztUnits int
	qformCode int
	sformCode int
	quatern   [3]float64 // quatern_b, quatern_c, quatern_d
	qoffset   [3]float64
	srow      [3][4]float64 // srow_x, srow_y, srow_z
}

// sniff reports the version and byte order of the header at the start of
// b, or version 0 when b does not start with a NIfTI header.
func sniff(b []byte) (version int, bigEndian bool) {
	if len(b) < 4 {
		return 0, false
	}
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		switch bo.Uint32(b) {
		case size1:
			if len(b) >= size1 && magic1(b[344:348]) {
				return 1, bo == binary.BigEndian
			}
		case size2:
			if len(b) >= 8 && magic2(b[4:8]) {
				return 2, bo == binary.BigEndian
			}
		}
	}
	return 0, false
}

func magic1(m []byte) bool {
	return (m[0] == 'n' && m[2] == '1' && m[3] == 0) && (m[1] == '+' || m[1] == 'i')
}

func magic2(m []byte) bool {
	return (m[0] == 'n' && m[2] == '2' && m[3] == 0) && (m[1] == '+' || m[1] == 'i')
}

// parseHeader decodes the header at the start of b. It returns nil when b
// does not hold a whole NIfTI header.
func parseHeader(b []byte) *header {
	v, big := sniff(b)
	var bo binary.ByteOrder = binary.LittleEndian
	if big {
		bo = binary.BigEndian
	}
	switch {
	case v == 1 && len(b) >= size1:
		return parse1(b, bo, big)
	case v == 2 && len(b) >= size2:
		return parse2(b, bo, big)
	}
	return nil
}

func parse1(b []byte, bo binary.ByteOrder, big bool) *header {
	f32 := func(off int) float64 { return float64(math.Float32frombits(bo.Uint32(b[off:]))) }
	i16 := func(off int) int { return int(int16(bo.Uint16(b[off:]))) }
	h := &header{version: 1, bigEndian: big, single: b[345] == '+'}
	for i := range h.dim {
		h.dim[i] = int64(i16(40 + 2*i))
		h.pixdim[i] = f32(76 + 4*i)
	}
	h.datatype = i16(70)
	h.voxOffset = f32(108)
	h.slope, h.inter = f32(112), f32(116)
	h.xyztUnits = int(b[123])
	h.qformCode, h.sformCode = i16(252), i16(254)
	for i := 0; i < 3; i++ {
		h.quatern[i] = f32(256 + 4*i)
		h.qoffset[i] = f32(268 + 4*i)
		for j := 0; j < 4; j++ {
			h.srow[i][j] = f32(280 + 16*i + 4*j)
		}
	}
	return h
}

func parse2(b []byte, bo binary.ByteOrder, big bool) *header {
	f64 := func(off int) float64 { return math.Float64frombits(bo.Uint64(b[off:])) }
	i64 := func(off int) int64 { return int64(bo.Uint64(b[off:])) }
	i32 := func(off int) int { return int(int32(bo.Uint32(b[off:]))) }
	h := &header{version: 2, bigEndian: big, single: b[5] == '+'}
	for i := range h.dim {
		h.dim[i] = i64(16 + 8*i)
		h.pixdim[i] = f64(104 + 8*i)
	}
	h.datatype = int(int16(bo.Uint16(b[12:])))
	h.voxOffset = float64(i64(168))
	h.slope, h.inter = f64(176), f64(184)
	h.qformCode, h.sformCode = i32(344), i32(348)
	for i := 0; i < 3; i++ {
		h.quatern[i] = f64(352 + 8*i)
		h.qoffset[i] = f64(376 + 8*i)
		for j := 0; j < 4; j++ {
			h.srow[i][j] = f64(400 + 32*i + 8*j)
		}
	}
	h.xyztUnits = i32(500)
	return h
}
