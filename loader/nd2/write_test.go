package nd2

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf16"
)

// lvItem is an LV item for the test writer: a value of one of the kinds
// below, or a level of items.
type lvItem struct {
	name string
	val  any // bool, int32, uint32, float64, string, []byte, []lvItem
}

// encodeLV writes items as LV: each a type byte, a name length, the UTF-16
// name with its NUL, then the value; a level as count, length (from the
// item's start to the end of its items), items, offset table.
func encodeLV(items []lvItem) []byte {
	var out bytes.Buffer
	for _, it := range items {
		out.Write(encodeItem(it))
	}
	return out.Bytes()
}

func encodeItem(it lvItem) []byte {
	le := binary.LittleEndian
	name := utf16.Encode([]rune(it.name + "\x00"))
	head := func(kind byte) *bytes.Buffer {
		var b bytes.Buffer
		b.WriteByte(kind)
		b.WriteByte(byte(len(name)))
		binary.Write(&b, le, name)
		return &b
	}
	var b *bytes.Buffer
	switch v := it.val.(type) {
	case bool:
		b = head(lvBool)
		b.WriteByte(byte(boolInt(v)))
	case int32:
		b = head(lvInt32)
		binary.Write(b, le, v)
	case uint32:
		b = head(lvUint32)
		binary.Write(b, le, v)
	case float64:
		b = head(lvDouble)
		binary.Write(b, le, v)
	case string:
		b = head(lvString)
		binary.Write(b, le, utf16.Encode([]rune(v+"\x00")))
	case []byte:
		b = head(lvBytes)
		binary.Write(b, le, uint64(len(v)))
		b.Write(v)
	case []lvItem:
		b = head(lvLevel)
		body := encodeLV(v)
		binary.Write(b, le, uint32(len(v)))
		binary.Write(b, le, uint64(b.Len()+8+len(body)))
		b.Write(body)
		b.Write(make([]byte, 8*len(v)))
	default:
		panic("lv kind")
	}
	return b.Bytes()
}

// nd2Writer builds a chunked ND2 file in memory.
type nd2Writer struct {
	small bool // no padding: files small enough to seed fuzzing
	buf   bytes.Buffer
	keys  []string
	offs  []int64
}

// chunk appends a chunk, its name field padded as NIS-Elements pads it
// (data at the next 4 KiB boundary) when pad is true and w is not small.
func (w *nd2Writer) chunk(name string, data []byte, pad bool) {
	off := int64(w.buf.Len())
	field := []byte(name)
	if pad && !w.small {
		n := 4096 - (int(off)+chunkHeader+len(field))%4096
		field = append(field, make([]byte, n%4096)...)
	}
	le := binary.LittleEndian
	binary.Write(&w.buf, le, uint32(chunkMagic))
	binary.Write(&w.buf, le, uint32(len(field)))
	binary.Write(&w.buf, le, uint64(len(data)))
	w.buf.Write(field)
	w.buf.Write(data)
	w.keys, w.offs = append(w.keys, name), append(w.offs, off)
}

// finish appends the chunk map and the tail that points to it.
func (w *nd2Writer) finish() []byte {
	var m bytes.Buffer
	le := binary.LittleEndian
	for i, k := range w.keys {
		m.WriteString(k)
		binary.Write(&m, le, uint64(w.offs[i]))
		binary.Write(&m, le, uint64(0))
	}
	m.Write(mapSignature)
	binary.Write(&m, le, uint64(0))
	at := int64(w.buf.Len())
	binary.Write(&w.buf, le, uint32(chunkMagic))
	binary.Write(&w.buf, le, uint32(len(filemapSignature)))
	binary.Write(&w.buf, le, uint64(m.Len()))
	w.buf.Write(filemapSignature)
	w.buf.Write(m.Bytes())
	w.buf.Write(mapSignature)
	binary.Write(&w.buf, le, uint64(at))
	return w.buf.Bytes()
}

// synth describes a synthetic file: frames of w×h pixels of comps
// components of bits each, over the loops (outermost first; 'P' a
// multipoint loop, its points named).
type synth struct {
	w, h, comps, bits int
	loops             []loop
	points            []string
	compress          bool
	padRow            int // bytes of padding after each row
	channels          []string
	colors            []uint32
}

// sample is the value the synthetic files hold at frame n, pixel (x, y),
// component c.
func sample(n, x, y, c int) uint32 { return uint32(n*1009 + y*31 + x*7 + c*101) }

// build writes the file.
func (s synth) build() []byte { return s.write(false) }

// buildSmall writes the file without padding chunks to 4 KiB.
func (s synth) buildSmall() []byte { return s.write(true) }

func (s synth) write(small bool) []byte {
	w := nd2Writer{small: small}
	w.chunk("ND2 FILE SIGNATURE CHUNK NAME01!", append([]byte("Ver3.0"), make([]byte, 58)...), false)
	bpc := 8
	if s.bits > 8 {
		bpc = 16
	}
	rowBytes := s.w*s.comps*bpc/8 + s.padRow
	comp := uint32(2)
	if s.compress {
		comp = 0
	}
	w.chunk("ImageAttributesLV!", encodeLV([]lvItem{{"SLxImageAttributes", []lvItem{
		{"uiWidth", uint32(s.w)}, {"uiWidthBytes", uint32(rowBytes)}, {"uiHeight", uint32(s.h)},
		{"uiComp", uint32(s.comps)}, {"uiBpcInMemory", uint32(bpc)}, {"uiBpcSignificant", uint32(s.bits)},
		{"uiSequenceCount", uint32(s.frames())}, {"eCompression", comp},
	}}}), true)
	var planes []lvItem
	for i, name := range s.channels {
		planes = append(planes, lvItem{"a" + strconv.Itoa(i), []lvItem{
			{"uiCompCount", uint32(s.comps / len(s.channels))}, {"uiColor", s.colors[i]}, {"sDescription", name},
		}})
	}
	w.chunk("ImageMetadataSeqLV|0!", encodeLV([]lvItem{{"SLxPictureMetadata", []lvItem{
		{"dCalibration", 0.25}, {"bCalibrated", true},
		{"sPicturePlanes", []lvItem{{"uiCount", uint32(len(planes))}, {"sPlaneNew", planes}}},
	}}}), true)
	w.chunk("ImageMetadataLV!", encodeLV([]lvItem{{"SLxExperiment", s.experiment(0)}}), true)
	for n := range s.frames() {
		var px bytes.Buffer
		for y := range s.h {
			for x := range s.w {
				for c := range s.comps {
					v := sample(n, x, y, c)
					if bpc == 8 {
						px.WriteByte(byte(v))
					} else {
						binary.Write(&px, binary.LittleEndian, uint16(v&(1<<s.bits-1)))
					}
				}
			}
			px.Write(make([]byte, s.padRow))
		}
		pix := px.Bytes()
		if s.compress {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write(pix)
			zw.Close()
			pix = z.Bytes()
		}
		data := binary.LittleEndian.AppendUint64(nil, math.Float64bits(100+250*float64(n)))
		w.chunk("ImageDataSeq|"+strconv.Itoa(n)+"!", append(data, pix...), true)
	}
	return w.finish()
}

func (s synth) frames() int {
	n := 1
	for _, l := range s.loops {
		n *= l.count
	}
	return n
}

// experiment is the loop at depth k and those nested in it.
func (s synth) experiment(k int) []lvItem {
	if k >= len(s.loops) {
		return nil
	}
	l := s.loops[k]
	var e []lvItem
	switch l.axis {
	case 'T':
		e = []lvItem{{"eType", int32(loopTime)}, {"uLoopPars", []lvItem{{"uiCount", uint32(l.count)}, {"dPeriod", 2000.0}}}}
	case 'Z':
		e = []lvItem{{"eType", int32(loopZ)}, {"uLoopPars", []lvItem{{"uiCount", uint32(l.count)}, {"dZStep", -1.5}}}}
	case 'P':
		var pts []lvItem
		valid := make([]byte, l.count)
		for i := range l.count {
			pts = append(pts, lvItem{"", []lvItem{{"dPosX", float64(i)}, {"dPosName", s.points[i]}}})
			valid[i] = 1
		}
		e = []lvItem{{"eType", int32(loopXY)}, {"uLoopPars", []lvItem{{"uiCount", uint32(l.count)}, {"Points", pts}}}, {"pItemValid", valid}}
	}
	if next := s.experiment(k + 1); next != nil {
		e = append(e, lvItem{"ppNextLevelEx", []lvItem{{"", []lvItem{{"SLxExperiment", next}}}}})
	}
	return e
}
