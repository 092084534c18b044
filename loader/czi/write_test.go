package czi

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/klauspost/compress/zstd"
)

// A small CZI writer for tests, laid out as libCZI's published structures
// say: the file header, subblocks, the metadata XML, the TimeStamps
// attachment and its directory, then the subblock directory.

type dimW struct {
	name         string
	start, size  int
	stored       int
	startCoordin float32
}

type blockW struct {
	pixel, comp int32
	dims        []dimW
	data        []byte // as stored (compressed or not)
}

type cziWriter struct {
	buf    bytes.Buffer
	blocks []blockW
	xml    string
	stamps []float64
}

func (w *cziWriter) segment(name string, data []byte) int64 {
	pos := int64(w.buf.Len())
	var h [32]byte
	copy(h[:], name)
	alloc := int64(len(data)+31) &^ 31
	binary.LittleEndian.PutUint64(h[16:], uint64(alloc))
	binary.LittleEndian.PutUint64(h[24:], uint64(len(data)))
	w.buf.Write(h[:])
	w.buf.Write(data)
	w.buf.Write(make([]byte, alloc-int64(len(data))))
	return pos
}

func entry(b blockW, pos int64) []byte {
	e := make([]byte, 32+20*len(b.dims))
	copy(e, "DV")
	binary.LittleEndian.PutUint32(e[2:], uint32(b.pixel))
	binary.LittleEndian.PutUint64(e[6:], uint64(pos))
	binary.LittleEndian.PutUint32(e[18:], uint32(b.comp))
	binary.LittleEndian.PutUint32(e[28:], uint32(len(b.dims)))
	for i, d := range b.dims {
		o := e[32+20*i:]
		copy(o[:4], d.name)
		binary.LittleEndian.PutUint32(o[4:], uint32(int32(d.start)))
		binary.LittleEndian.PutUint32(o[8:], uint32(int32(d.size)))
		binary.LittleEndian.PutUint32(o[12:], math.Float32bits(d.startCoordin))
		binary.LittleEndian.PutUint32(o[16:], uint32(int32(d.stored)))
	}
	return e
}

func (w *cziWriter) bytes() []byte {
	w.buf.Reset()
	w.buf.Write(make([]byte, 544)) // the file header, filled in last
	var entries [][]byte
	for _, b := range w.blocks {
		pos := int64(w.buf.Len())
		e := entry(b, pos)
		head := make([]byte, max(256, 16+len(e)))
		binary.LittleEndian.PutUint64(head[8:], uint64(len(b.data)))
		copy(head[16:], e)
		w.segment("ZISRAWSUBBLOCK", append(head, b.data...))
		entries = append(entries, e)
	}
	meta := make([]byte, 256)
	binary.LittleEndian.PutUint32(meta, uint32(len(w.xml)))
	metaPos := w.segment("ZISRAWMETADATA", append(meta, w.xml...))
	var attDirPos int64
	if w.stamps != nil {
		ts := make([]byte, 8+8*len(w.stamps))
		binary.LittleEndian.PutUint32(ts, uint32(len(ts)))
		binary.LittleEndian.PutUint32(ts[4:], uint32(len(w.stamps)))
		for i, v := range w.stamps {
			binary.LittleEndian.PutUint64(ts[8+8*i:], math.Float64bits(v))
		}
		ae := make([]byte, 128)
		copy(ae, "A1")
		copy(ae[40:], "CZTIMS")
		copy(ae[48:], "TimeStamps")
		att := make([]byte, 256)
		binary.LittleEndian.PutUint64(att, uint64(len(ts)))
		copy(att[16:], ae)
		attPos := w.segment("ZISRAWATTACH", append(att, ts...))
		binary.LittleEndian.PutUint64(ae[12:], uint64(attPos))
		dir := make([]byte, 256)
		binary.LittleEndian.PutUint32(dir, 1)
		attDirPos = w.segment("ZISRAWATTDIR", append(dir, ae...))
	}
	dir := make([]byte, 128)
	binary.LittleEndian.PutUint32(dir, uint32(len(entries)))
	for _, e := range entries {
		dir = append(dir, e...)
	}
	dirPos := w.segment("ZISRAWDIRECTORY", dir)
	out := w.buf.Bytes()
	copy(out, "ZISRAWFILE")
	binary.LittleEndian.PutUint64(out[16:], 512)
	binary.LittleEndian.PutUint64(out[24:], 512)
	d := out[32:]
	binary.LittleEndian.PutUint32(d, 1)
	binary.LittleEndian.PutUint64(d[52:], uint64(dirPos))
	binary.LittleEndian.PutUint64(d[60:], uint64(metaPos))
	binary.LittleEndian.PutUint64(d[72:], uint64(attDirPos))
	return bytes.Clone(out)
}

// plane2D is a tile's dimensions: its rectangle (logical and stored) and
// its other coordinates.
func plane2D(x, y, w, h, sw, sh int, other map[string]int) []dimW {
	d := []dimW{{name: "X", start: x, size: w, stored: sw}, {name: "Y", start: y, size: h, stored: sh}}
	for _, k := range []string{"T", "C", "Z", "S", "M", "V"} {
		if v, ok := other[k]; ok {
			d = append(d, dimW{name: k, start: v, size: 1, stored: 1})
		}
	}
	return d
}

func zstdFrame(b []byte) []byte {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// hiLo packs 16-bit little-endian samples as Zstd1 does: every low byte,
// then every high byte.
func hiLo(b []byte) []byte {
	n := len(b) / 2
	out := make([]byte, len(b))
	for i := 0; i < n; i++ {
		out[i], out[n+i] = b[2*i], b[2*i+1]
	}
	return out
}
