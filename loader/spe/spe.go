// Package spe reads Princeton Instruments SPE files (WinSpec/WinView 2.x
// and LightField 3.x): frames of one region of interest, presented as a T
// axis ("TYX"; "YX" for one frame). It registers the format "spe" with the
// loader.
//
// A 2.x file is a 4100-byte header (width at byte 42, height at 656,
// frame count at 1446, sample type at 108) followed by the frames, one
// after another. A 3.x file keeps that header (version at 1992, ≥ 3) and
// adds an XML footer (its offset at 678) whose DataFormat says the pixel
// format, each frame's size and stride (frames may carry metadata after
// their samples: time stamps, which give the T spacing), and the regions
// of a frame; the first region is read. Frames are mapped and read one
// per chunk, without reading the file first.
package spe

import (
	"context"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"vastview/base/textutil"
	"vastview/loader"
	"vastview/loader/internal/rawvol"
)

// format is SPE as the registry knows it: by name alone, SPE having no
// signature.
var format = loader.Format{
	Name: "spe", Titles: []string{"SPE"}, Open: Open, Exts: []string{".spe"}, ByName: true,
}

func init() { loader.Register(format) }

// headerSize is the fixed header of every SPE file.
const headerSize = 4100

// The header fields read, by byte offset.
const (
	offWidth   = 42   // uint16
	offType    = 108  // int16: the sample type (2.x)
	offHeight  = 656  // uint16
	offXML     = 678  // uint64: the XML footer's offset (3.x)
	offFrames  = 1446 // int32
	offVersion = 1992 // float32: the header version
)

// sampleTypes are the 2.x data type codes.
var sampleTypes = map[int16]loader.DType{
	0: loader.Float32, 1: loader.Int32, 2: loader.Int16, 3: loader.Uint16,
	5: loader.Float64, 6: loader.Uint8, 8: loader.Uint32,
}

// pixelFormats are the 3.x footer's pixel formats.
var pixelFormats = map[string]loader.DType{
	"MonochromeUnsigned16": loader.Uint16, "MonochromeUnsigned32": loader.Uint32,
	"MonochromeFloating32": loader.Float32,
}

// Match reports whether path ends in .spe. SPE has no magic number: a
// file so named is taken as SPE, and a header that makes no sense is then
// refused by Open naming the field. It is safe for concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// header is what the fixed header says.
type header struct {
	width, height, frames int
	dtype                 loader.DType
	typeOK                bool
	typeCode              int16
	version               float32
	xmlAt                 uint64
}

func parseHeader(b []byte) header {
	le := binary.LittleEndian
	h := header{
		width:   int(le.Uint16(b[offWidth:])),
		height:  int(le.Uint16(b[offHeight:])),
		frames:  int(int32(le.Uint32(b[offFrames:]))),
		version: math.Float32frombits(le.Uint32(b[offVersion:])),
		xmlAt:   le.Uint64(b[offXML:]),
	}
	h.typeCode = int16(le.Uint16(b[offType:]))
	h.dtype, h.typeOK = sampleTypes[h.typeCode]
	return h
}

// layout is where a file's frames are and what they hold.
type layout struct {
	width, height, frames int
	dtype                 loader.DType
	frameAt               int64 // the first frame's samples
	stride                int64 // from one frame to the next
	secondsPerFrame       float64
}

// Open opens an SPE file. The returned Source is safe for concurrent use.
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
	h := parseHeader(b)
	lay, err := h.layout()
	if err != nil {
		return nil, err
	}
	if h.version >= 3 && h.xmlAt > 0 {
		if lay, err = footerLayout(f, h, st.Size()); err != nil {
			return nil, err
		}
	}
	frameBytes := int64(lay.width) * int64(lay.height) * int64(lay.dtype.Size())
	if lay.stride < frameBytes {
		return nil, formatError("frames of %d bytes %d bytes apart", frameBytes, lay.stride)
	}
	if end := lay.frameAt + int64(lay.frames-1)*lay.stride + frameBytes; end > st.Size() {
		return nil, formatError("%d frames of %d×%d samples need %d bytes, the file holds %d: %v",
			lay.frames, lay.width, lay.height, end, st.Size(), loader.ErrTruncated)
	}
	axes, shape := "TYX", []int{lay.frames, lay.height, lay.width}
	spacing, units := []float64{1, 1, 1}, []string{"", "", ""}
	if lay.secondsPerFrame > 0 {
		spacing[0], units[0] = lay.secondsPerFrame, "second"
	}
	if lay.frames == 1 {
		axes, shape, spacing, units = "YX", shape[1:], spacing[1:], units[1:]
	}
	m := loader.NewMeta("spe", axes, shape, lay.dtype, rawvol.PlaneChunk(shape, false), spacing, units)
	var data rawvol.Data
	if lay.stride == frameBytes {
		data, err = rawvol.Open([]rawvol.Part{{Path: path, Start: lay.frameAt}}, int64(lay.frames)*frameBytes)
	} else {
		at, stride := lay.frameAt, lay.stride
		data, err = rawvol.Framed(path, lay.frames, frameBytes, func(_ *loader.File, i int) (int64, error) {
			return at + int64(i)*stride, nil
		})
	}
	if err != nil {
		return nil, formatError("%v", err)
	}
	return rawvol.New(m, data, false, false)
}

// layout is the 2.x layout the header describes (a 3.x footer may
// replace it).
func (h header) layout() (layout, error) {
	switch {
	case h.width < 1:
		return layout{}, formatError("impossible header: the frame width (xdim, byte %d) is %d", offWidth, h.width)
	case h.height < 1:
		return layout{}, formatError("impossible header: the frame height (ydim, byte %d) is %d", offHeight, h.height)
	case h.frames < 1:
		return layout{}, formatError("impossible header: the frame count (NumFrames, byte %d) is %d", offFrames, h.frames)
	}
	if !h.typeOK && !(h.version >= 3 && h.xmlAt > 0) {
		return layout{}, unsupported(fmt.Sprintf("sample type code %d (datatype, byte %d)", h.typeCode, offType))
	}
	frameBytes := int64(h.width) * int64(h.height) * int64(max(1, h.dtype.Size()))
	return layout{width: h.width, height: h.height, frames: h.frames, dtype: h.dtype, frameAt: headerSize, stride: frameBytes}, nil
}

// maxFooter bounds the XML footer read.
const maxFooter = 16 << 20

// footer is the part of the 3.x XML footer read.
type footer struct {
	Data struct {
		Blocks []block `xml:"DataBlock"`
	} `xml:"DataFormat"`
	Meta struct {
		Blocks []metaBlock `xml:"MetaBlock"`
	} `xml:"MetaFormat"`
}

type block struct {
	Type        string  `xml:"type,attr"`
	Count       string  `xml:"count,attr"`
	PixelFormat string  `xml:"pixelFormat,attr"`
	Size        string  `xml:"size,attr"`
	Stride      string  `xml:"stride,attr"`
	Width       string  `xml:"width,attr"`
	Height      string  `xml:"height,attr"`
	Blocks      []block `xml:"DataBlock"`
}

type metaBlock struct {
	Type       string `xml:"type,attr"`
	Event      string `xml:"event,attr"`
	Resolution string `xml:"resolution,attr"`
	BitDepth   string `xml:"bitDepth,attr"`
}

// footerLayout reads the 3.x footer at h.xmlAt of f (size bytes) and
// returns the layout it describes: the frames' pixel format, size and
// stride, the first region's size, and the time between the first two
// frames' exposures when they carry time stamps.
func footerLayout(f *os.File, h header, size int64) (layout, error) {
	if h.xmlAt < headerSize || int64(h.xmlAt) >= size {
		return layout{}, formatError("its XML footer would start at byte %d of %d", h.xmlAt, size)
	}
	n := size - int64(h.xmlAt)
	if n > maxFooter {
		return layout{}, formatError("an XML footer of %d bytes", n)
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, int64(h.xmlAt)); err != nil {
		return layout{}, formatError("reading the XML footer: %v", err)
	}
	var ft footer
	if err := xml.Unmarshal(b, &ft); err != nil {
		return layout{}, formatError("its XML footer: %v", err)
	}
	var frame *block
	for i := range ft.Data.Blocks {
		if ft.Data.Blocks[i].Type == "Frame" {
			frame = &ft.Data.Blocks[i]
		}
	}
	if frame == nil {
		return layout{}, formatError("its XML footer describes no frames")
	}
	dt, ok := pixelFormats[frame.PixelFormat]
	if !ok {
		return layout{}, unsupported(fmt.Sprintf("pixel format %q", textutil.Clip(frame.PixelFormat)))
	}
	count, stride, fsize := atoi(frame.Count), atoi(frame.Stride), atoi(frame.Size)
	var region *block
	for i := range frame.Blocks {
		if frame.Blocks[i].Type == "Region" {
			region = &frame.Blocks[i]
			break
		}
	}
	if region == nil || count < 1 || stride < 1 || fsize < 1 {
		return layout{}, formatError("its XML footer's frames are not described (count %q, size %q, stride %q)",
			textutil.Clip(frame.Count), textutil.Clip(frame.Size), textutil.Clip(frame.Stride))
	}
	w, ht := atoi(region.Width), atoi(region.Height)
	if w < 1 || ht < 1 || int64(w)*int64(ht)*int64(dt.Size()) > int64(fsize) || fsize > stride {
		return layout{}, formatError("a region of %q×%q samples in frames of %d bytes, %d apart",
			textutil.Clip(region.Width), textutil.Clip(region.Height), fsize, stride)
	}
	lay := layout{width: w, height: ht, frames: count, dtype: dt, frameAt: headerSize, stride: int64(stride)}
	lay.secondsPerFrame = timeStep(f, ft, lay, int64(fsize))
	return lay, nil
}

// timeStep is the time between the first two frames' exposures, in
// seconds, from the time stamps that follow each frame's samples (0 when
// there are none, or one frame).
func timeStep(f *os.File, ft footer, lay layout, frameSize int64) float64 {
	if lay.frames < 2 {
		return 0
	}
	off := frameSize
	for _, mb := range ft.Meta.Blocks {
		bytes := int64(atoi(mb.BitDepth) / 8)
		if bytes != 8 || off+bytes > lay.stride {
			return 0
		}
		if mb.Type == "TimeStamp" && mb.Event == "ExposureStarted" {
			res, err := strconv.ParseFloat(mb.Resolution, 64)
			if err != nil || !(res > 0) {
				return 0
			}
			var t [2]int64
			for i := range t {
				var b [8]byte
				if _, err := f.ReadAt(b[:], lay.frameAt+int64(i)*lay.stride+off); err != nil {
					return 0
				}
				t[i] = int64(binary.LittleEndian.Uint64(b[:]))
			}
			if d := float64(t[1]-t[0]) / res; d > 0 {
				return d
			}
			return 0
		}
		off += bytes
	}
	return 0
}

// atoi reads a footer's count or size; -1 when it is not one.
func atoi(s string) int {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 0 || v > math.MaxInt32 {
		return -1
	}
	return v
}

func formatError(format string, args ...any) error {
	return loader.Errorf("spe", format, args...)
}

func unsupported(feature string) error {
	return &loader.UnsupportedError{Format: "spe", Feature: feature}
}
