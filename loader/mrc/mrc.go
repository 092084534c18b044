// Package mrc reads MRC files (MRC2014 and the older MRC files of
// electron microscopy: maps, tomograms, image stacks and movies). It
// registers the format "mrc" with the loader.
//
// A file is a 1024-byte header, an extended header of NSYMBT bytes (not
// read) and the samples, plane after plane. The header's machine stamp
// gives the byte order (when it is missing, the order in which the sizes
// and mode make sense); MODE the sample type: 0 int8, 1 int16, 2 float32,
// 6 uint16, 12 float16 (read as float32) and 101 (4-bit samples packed
// two per byte, low nibble first, each row starting on a byte; read as
// uint8). Axes follow mrcfile: a space group (ISPG) of 0 is a stack of
// images ("TYX", or "YX" for one image), 401–630 a stack of volumes of MZ
// sections each ("TZYX"), anything else a volume ("ZYX"). The voxel size
// is CELLA/MX, CELLA/MY, CELLA/MZ, in ångström. Planes are mapped and
// read one per chunk.
package mrc

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"vastview/loader"
	"vastview/loader/internal/rawvol"
)

// format is MRC as the registry knows it: "MAP" at byte 208 (MRC2014) of a
// whole header; or, for a file named as MRC files are, sizes and a mode
// that make sense in one byte order.
var format = loader.Format{
	Name: "mrc", Titles: []string{"MRC"}, Open: Open, Exts: exts,
	Magic: []loader.Magic{{Offset: offMap, Bytes: "MAP" + strings.Repeat("?", headerSize-offMap-3)}},
	Sniff: func(path string, head []byte) bool {
		if len(head) < headerSize {
			return false
		}
		_, ok := byteOrder(head)
		return ok && loader.HasExt(path, exts...)
	},
}

func init() { loader.Register(format) }

// exts are the names MRC files go by: maps, image stacks, tilt series,
// aligned stacks and reconstructions.
var exts = []string{".mrc", ".mrcs", ".map", ".st", ".ali", ".rec"}

// headerSize is the fixed header of every MRC file.
const headerSize = 1024

// The header fields read, by byte offset (32-bit words).
const (
	offNX     = 0
	offMode   = 12
	offMX     = 28
	offCellA  = 40
	offMapC   = 64
	offISPG   = 88
	offNSymBT = 92
	offMap    = 208 // "MAP " in MRC2014
	offStamp  = 212 // machine stamp
)

// The modes read, and their sample types as read.
const (
	modeInt8    = 0
	modeInt16   = 1
	modeFloat32 = 2
	modeCInt16  = 3
	modeCFloat  = 4
	modeUint16  = 6
	modeFloat16 = 12
	modePacked4 = 101
)

var modeTypes = map[int32]loader.DType{
	modeInt8: loader.Int8, modeInt16: loader.Int16, modeFloat32: loader.Float32,
	modeUint16: loader.Uint16, modeFloat16: loader.Float32, modePacked4: loader.Uint8,
}

// Match reports whether head is an MRC header: "MAP " at byte 208 (MRC2014)
// or, for a file named as MRC files are, sizes and a mode that make sense
// in one byte order. It is safe for concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// byteOrder is the byte order of header b: the machine stamp's when the
// sizes and mode are plausible in it, else (no MRC2014 stamp, or one that
// names the wrong order, as some files in the wild do, and mrcfile
// allows) the order in which they are. ok is false when neither is.
func byteOrder(b []byte) (binary.ByteOrder, bool) {
	first, second := binary.ByteOrder(binary.LittleEndian), binary.ByteOrder(binary.BigEndian)
	if b[offStamp] == 0x11 && b[offStamp+1] == 0x11 {
		first, second = second, first
	}
	switch {
	case plausible(b, first):
		return first, true
	case plausible(b, second):
		return second, true
	}
	return first, false
}

// maxSize bounds NX, NY and NZ: 2^24 samples along an axis, so that
// their products fit in 64 bits.
const maxSize = 1<<24 - 1

// plausible reports whether header b, read in byte order bo, has positive
// sizes of at most maxSize and a mode MRC defines.
func plausible(b []byte, bo binary.ByteOrder) bool {
	return implausible(b, bo) == ""
}

// implausible names the first field of header b, read in byte order bo,
// that no MRC file can have ("" when there is none).
func implausible(b []byte, bo binary.ByteOrder) string {
	for i, name := range [3]string{"NX", "NY", "NZ"} {
		switch n := int32(bo.Uint32(b[offNX+4*i:])); {
		case n < 1:
			return fmt.Sprintf("%s (samples along an axis) is %d, not a positive size", name, n)
		case n > maxSize:
			return fmt.Sprintf("%s (samples along an axis) is %d, more than the %d this reader takes", name, n, maxSize)
		}
	}
	switch m := int32(bo.Uint32(b[offMode:])); m {
	case modeInt8, modeInt16, modeFloat32, modeCInt16, modeCFloat, modeUint16, modeFloat16, modePacked4:
	default:
		return fmt.Sprintf("mode %d (MODE) is not a mode MRC defines (0, 1, 2, 3, 4, 6, 12, 101)", m)
	}
	return ""
}

// header is what the fixed header says.
type header struct {
	bo               binary.ByteOrder
	nx, ny, nz, mode int32
	mx, my, mz       int32
	cell             [3]float32
	mapCRS           [3]int32
	ispg, nsymbt     int32
}

func parseHeader(b []byte) (header, error) {
	bo, ok := byteOrder(b)
	i32 := func(off int) int32 { return int32(bo.Uint32(b[off:])) }
	h := header{bo: bo, nx: i32(offNX), ny: i32(offNX + 4), nz: i32(offNX + 8), mode: i32(offMode),
		mx: i32(offMX), my: i32(offMX + 4), mz: i32(offMX + 8),
		ispg: i32(offISPG), nsymbt: i32(offNSymBT)}
	for i := range h.cell {
		h.cell[i] = math.Float32frombits(bo.Uint32(b[offCellA+4*i:]))
		h.mapCRS[i] = i32(offMapC + 4*i)
	}
	if ok {
		return h, nil
	}
	// Neither byte order makes sense: name the field, read in the order
	// the machine stamp says.
	return h, formatError("impossible header: %s", implausible(b, bo))
}

// Open opens an MRC file. The returned Source is safe for concurrent use.
func Open(ctx context.Context, path string) (loader.Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, loader.StripPath(err)
	}
	b := make([]byte, headerSize)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, formatError("the file ends inside its %d-byte header: %v", headerSize, loader.ErrTruncated)
	}
	h, err := parseHeader(b)
	if err != nil {
		return nil, err
	}
	switch h.mode {
	case modeCInt16, modeCFloat:
		return nil, unsupported(fmt.Sprintf("mode %d (complex samples)", h.mode))
	}
	dt := modeTypes[h.mode]
	if h.nsymbt < 0 {
		return nil, formatError("an extended header of %d bytes", h.nsymbt)
	}
	nx, ny, nz := int64(h.nx), int64(h.ny), int64(h.nz)
	rowBytes := nx * int64(dt.Size())
	switch h.mode {
	case modeFloat16:
		rowBytes = nx * 2
	case modePacked4:
		rowBytes = (nx + 1) / 2
	}
	storedPlane := rowBytes * ny
	dataAt := int64(headerSize) + int64(h.nsymbt)
	if dataAt > st.Size() || nz > (st.Size()-dataAt)/storedPlane {
		return nil, formatError("%d×%d×%d (NX×NY×NZ) samples of mode %d after a %d-byte extended header need more than the file's %d bytes: %v",
			nx, ny, nz, h.mode, h.nsymbt, st.Size(), loader.ErrTruncated)
	}

	axes, shape := "ZYX", []int{int(nz), int(ny), int(nx)}
	vox := h.voxelSize()
	spacing, units := []float64{vox[2], vox[1], vox[0]}, make([]string, 3)
	for i, v := range spacing {
		if v > 0 {
			units[i] = "angstrom"
		} else {
			spacing[i] = 1
		}
	}
	switch {
	case h.ispg >= 401 && h.ispg <= 630:
		if h.mz < 1 || h.nz%h.mz != 0 {
			return nil, formatError("a stack of volumes of %d sections each holding %d sections", h.mz, h.nz)
		}
		axes, shape = "TZYX", []int{int(h.nz / h.mz), int(h.mz), int(ny), int(nx)}
		spacing, units = append([]float64{1}, spacing...), append([]string{""}, units...)
	case h.ispg == 0:
		axes, spacing[0], units[0] = "TYX", 1, ""
	}
	if len(shape) == 3 && nz == 1 {
		axes, shape, spacing, units = axes[1:], shape[1:], spacing[1:], units[1:]
	}
	m := loader.NewMeta("mrc", axes, shape, dt, rawvol.PlaneChunk(shape, false), spacing, units)
	if h.mapCRS != [3]int32{1, 2, 3} && h.mapCRS != [3]int32{} {
		m.Notes = append(m.Notes, fmt.Sprintf("axes stored in the order MAPC/MAPR/MAPS %d/%d/%d, shown as stored", h.mapCRS[0], h.mapCRS[1], h.mapCRS[2]))
	}
	data, err := rawvol.Open([]rawvol.Part{{Path: path, Start: dataAt}}, storedPlane*nz)
	if err != nil {
		return nil, formatError("%v", err)
	}
	bigEndian := h.bo == binary.BigEndian
	planeBytes := nx * ny * int64(dt.Size())
	switch h.mode {
	case modeFloat16:
		data = rawvol.Unpacked(data, storedPlane, planeBytes, func(dst, src []byte) { loader.HalfToFloat32(dst, src, h.bo) })
		bigEndian = false
	case modePacked4:
		data = rawvol.Unpacked(data, storedPlane, planeBytes, func(dst, src []byte) { unpack4(dst, src, int(nx), int(rowBytes)) })
	}
	return rawvol.New(m, data, bigEndian, false)
}

// voxelSize is CELLA over the sampling (MX, MY, MZ) per axis, x first; 0
// where it is not a positive finite length.
func (h header) voxelSize() [3]float64 {
	var v [3]float64
	for i, m := range [3]int32{h.mx, h.my, h.mz} {
		s := float64(h.cell[i]) / float64(m)
		if m > 0 && s > 0 && !math.IsInf(s, 0) {
			v[i] = s
		}
	}
	return v
}

// unpack4 spreads rows of nx 4-bit samples, each row stored in rowBytes
// bytes with its first sample in the low nibble, to one byte per sample.
func unpack4(dst, src []byte, nx, rowBytes int) {
	for r := 0; (r+1)*nx <= len(dst) && (r+1)*rowBytes <= len(src); r++ {
		out, in := dst[r*nx:(r+1)*nx], src[r*rowBytes:]
		for x := range out {
			v := in[x/2]
			if x%2 == 1 {
				v >>= 4
			}
			out[x] = v & 0x0f
		}
	}
}

func formatError(format string, args ...any) error {
	return loader.Errorf("mrc", format, args...)
}

func unsupported(feature string) error {
	return &loader.UnsupportedError{Format: "mrc", Feature: feature}
}
