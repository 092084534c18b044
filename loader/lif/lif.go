// Package lif reads Leica LAS X / LAS AF image files (.lif). It registers
// the format "lif" with the loader.
//
// A LIF file is a sequence of blocks, each starting with the int32 0x70,
// the int32 length of the block's header and the byte 0x2A. The first
// block holds the XML description of the whole file, as an int32 count of
// UTF-16LE characters and the characters. Every later block is a memory
// block: a size (int32 in version 1 files, int64 in version 2), the byte
// 0x2A, the UTF-16LE memory ID (int32 count, characters) and size bytes
// of samples.
//
// In the XML, each Element holding Data/Image is one image of the file (a
// series: Meta.Series lists them in the order of the XML, named by their
// Element path below the file's root element, "xzt" or "Folder/xzt"; the
// first is opened by default). Its Memory element names the memory block
// holding its samples by MemoryBlockID. Images whose memory is empty
// (size 0) hold no samples: they are not listed, and Meta.Notes names
// them. Its ImageDescription lists the dimensions in storage order
// (DimensionDescription: DimID 1 X, 2 Y, 3 Z, 4 T, 5 and 9 wavelengths, 10
// tiles; NumberOfElements; Length, the distance from the first sample to
// the last; Unit; BytesInc, the dimension's byte stride) and the channels
// (ChannelDescription: Resolution in bits, BytesInc, the channel's byte
// offset in a sample; LUTName, the display colour).
//
// The plane (Y and X) is the first two dimensions stored, whatever they
// are, as the plane readlif and LAS X show. An XZ scan (X, then Z) thus
// has its Z direction on the Y axis, its rows, as in readlif's reference
// pictures; if it also steps in Y (an XZY stack), those steps are on the Z
// axis; Meta.Notes says so. The other dimensions go on the Z and T axes
// (Z for a spatial one or a wavelength, T for time, when free), and the
// channels on C; axes of length 1 are left out. Each tile position of a
// tiled (mosaic, DimID 10) image is a series of its own, named
// "image (tile 3 of 12)".
//
// Spacing is Length/(NumberOfElements-1), as readlif takes it, converted
// to micrometres for lengths (Unit "m" in the files seen) and to seconds
// for time; Origin gives the translation. Samples of 1 to 8 bits are
// uint8, of 9 to 16 bits (12-bit cameras) uint16. A chunk is one plane,
// gathered from the mapped file through the dimensions' strides when read;
// nothing but the headers is read at open.
package lif

import (
	"context"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"vastview/base/textutil"
	"vastview/loader"
	"vastview/loader/internal/mapped"
	"vastview/loader/internal/rawvol"
)

// format is LIF as the registry knows it: the block magic 0x70 as a
// little-endian 32-bit number, the header length, and memByte, up to the
// XML header.
var format = loader.Format{
	Name: "lif", Titles: []string{"LIF"}, Exts: []string{".lif"},
	Magic: []loader.Magic{{Bytes: "\x70\x00\x00\x00????\x2a????"}},
}

// init registers the format; Open, which checks the signature again
// through Match, is set here to keep the declaration free of a cycle.
func init() {
	format.Open = Open
	loader.Register(format)
}

// Block framing.
const (
	magic     = 0x70 // int32 at the start of every block
	memByte   = 0x2A // byte after a block's header length, and after a memory block's size
	xmlAt     = 13   // the XML header's first character
	maxXML    = 1 << 30
	maxNameCh = 1 << 16 // longest memory ID read, in characters
)

// Match reports whether head starts as a LIF file does: the block magic
// 0x70 and the byte 0x2A after the header length. It is safe for
// concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// Open opens a LIF file at its first image. The returned Source is safe
// for concurrent use and is a loader.SeriesOpener over the file's images.
func Open(ctx context.Context, path string) (loader.Source, error) {
	return mapped.Open(ctx, path, parse)
}

// catalogue is what a file's headers say: its images.
type catalogue = mapped.Catalogue[*image]

// image is one series: where its samples are and how they are laid out.
type image struct {
	name    string
	start   int64   // the memory block's first sample byte, plus the tile's offset
	span    int64   // bytes from start that the samples reach
	steps   []int64 // byte stride per axis of the Meta (C: unused)
	chanOff []int64 // byte offset per channel
	cAxis   int     // position of C in the axes, or -1
	ss      int     // bytes per sample
}

// parse reads the headers of the mapped file f: the XML and the memory
// blocks' framing.
func parse(f *loader.File) (c *catalogue, err error) {
	defer f.Guard().Recover(&err)
	size := f.Size()
	head, err := f.Bytes(0, xmlAt)
	if err != nil {
		return nil, formatError("the file ends inside its %d-byte header: %v", xmlAt, loader.ErrTruncated)
	}
	if !Match("", head) {
		return nil, formatError("no LIF header")
	}
	n := int64(binary.LittleEndian.Uint32(head[9:]))
	if n*2 > size-xmlAt || n*2 > maxXML {
		return nil, formatError("an XML header of %d characters in a file of %d bytes: %v", n, size, loader.ErrTruncated)
	}
	raw, _ := f.Bytes(xmlAt, 2*n)
	var root xRoot
	dec := xml.NewDecoder(strings.NewReader(decodeUTF16(raw)))
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	if err := dec.Decode(&root); err != nil {
		return nil, formatError("its XML header: %v", err)
	}
	blocks, err := memoryBlocks(f, xmlAt+2*n, root.Version)
	if err != nil {
		return nil, err
	}
	c = &catalogue{Format: "lif", Size: size, New: func(s *mapped.Series[*image]) loader.Source { return &source{s} }}
	var names []string
	var empty, bad []string
	var firstErr error
	var walk func(e *xElement, name string, depth int)
	walk = func(e *xElement, name string, depth int) {
		if e.Data.Image != nil {
			b, ok := blocks[e.Memory.ID]
			if !ok && atoi64(e.Memory.Size) > 0 {
				if firstErr == nil {
					firstErr = formatError("image %q: no memory block %q", textutil.Clip(name), textutil.Clip(e.Memory.ID))
				}
				bad = append(bad, name)
			} else if b.size == 0 {
				empty = append(empty, name)
			} else if imgs, metas, err := layout(e.Data.Image, name, b); err != nil {
				if firstErr == nil {
					firstErr = err
				}
				bad = append(bad, name)
			} else {
				c.Series = append(c.Series, imgs...)
				c.Metas = append(c.Metas, metas...)
				for _, im := range imgs {
					names = append(names, im.name)
				}
			}
		}
		for i := range e.Children {
			walk(&e.Children[i], joinName(name, e.Children[i].Name, depth), depth+1)
		}
	}
	for i := range root.Elements {
		walk(&root.Elements[i], root.Elements[i].Name, 0)
	}
	if len(c.Series) == 0 {
		if firstErr != nil {
			return nil, firstErr
		}
		if len(empty) > 0 {
			return nil, formatError("its %d images hold no samples", len(empty))
		}
		return nil, formatError("the file describes no images")
	}
	var notes []string
	if len(empty) > 0 {
		notes = append(notes, fmt.Sprintf("not listed, holding no samples: %s", quoteList(empty)))
	}
	if len(bad) > 0 {
		notes = append(notes, fmt.Sprintf("not listed, unreadable: %s (%v)", quoteList(bad), firstErr))
	}
	c.List(names)
	for _, m := range c.Metas {
		m.Notes = append(m.Notes, notes...)
	}
	return c, nil
}

// joinName is the series name of a child element called child of the
// element called parent at depth: its path below the file's root element.
func joinName(parent, child string, depth int) string {
	if depth == 0 {
		return child
	}
	return parent + "/" + child
}

// quoteList quotes names for a note, at most 8 of them.
func quoteList(names []string) string {
	var q []string
	for i, n := range names {
		if i == 8 {
			q = append(q, fmt.Sprintf("… %d more", len(names)-i))
			break
		}
		q = append(q, strconv.Quote(textutil.Clip(n)))
	}
	return strings.Join(q, ", ")
}

// block is a memory block's samples in the file.
type block struct{ at, size int64 }

// memoryBlocks walks the memory blocks from off to the end of f, by their
// framing only, and returns them by memory ID. version is the XML
// header's Version attribute: "1" files have 32-bit block sizes (without
// one, the framing says which).
func memoryBlocks(f *loader.File, off int64, version string) (map[string]block, error) {
	out := map[string]block{}
	size := f.Size()
	for off < size {
		fail := func(what string, args ...any) (map[string]block, error) {
			return nil, formatError("memory block at byte %d: %s", off, fmt.Sprintf(what, args...))
		}
		// 14 bytes: the framing is told by byte 13, the memory ID's
		// marker after a 32-bit size, which every block has.
		h, err := f.Bytes(off, 14)
		if err != nil {
			return fail("%v", loader.ErrTruncated)
		}
		if binary.LittleEndian.Uint32(h) != magic || h[8] != memByte {
			return fail("no block header")
		}
		p := off + 9
		var n int64
		if version == "1" || version != "2" && h[13] == memByte {
			n = int64(binary.LittleEndian.Uint32(h[9:]))
			p += 4
		} else {
			b, err := f.Bytes(p, 8)
			if err != nil {
				return fail("%v", loader.ErrTruncated)
			}
			n = int64(binary.LittleEndian.Uint64(b))
			p += 8
		}
		b, err := f.Bytes(p, 5)
		if err != nil {
			return fail("%v", loader.ErrTruncated)
		}
		if b[0] != memByte {
			return fail("no memory ID")
		}
		chars := int64(binary.LittleEndian.Uint32(b[1:]))
		p += 5
		if chars > maxNameCh {
			return fail("a memory ID of %d characters", chars)
		}
		id, err := f.Bytes(p, 2*chars)
		if err != nil {
			return fail("%v", loader.ErrTruncated)
		}
		p += 2 * chars
		if n < 0 || n > size-p {
			return fail("%d bytes of samples, the file holds %d more: %v", n, size-p, loader.ErrTruncated)
		}
		name := decodeUTF16(id)
		if _, dup := out[name]; !dup {
			out[name] = block{at: p, size: n}
		}
		off = p + n
	}
	return out, nil
}

// decodeUTF16 decodes UTF-16LE bytes (an odd last byte is dropped; bad
// surrogates become U+FFFD).
func decodeUTF16(b []byte) string {
	out := make([]byte, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		r := rune(binary.LittleEndian.Uint16(b[i:]))
		if utf16.IsSurrogate(r) {
			r2 := utf8.RuneError
			if i+3 < len(b) {
				r2 = rune(binary.LittleEndian.Uint16(b[i+2:]))
			}
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				r = d
				i += 2
			} else {
				r = utf8.RuneError
			}
		}
		out = utf8.AppendRune(out, r)
	}
	return string(out)
}

// The XML read.
type xRoot struct {
	Version  string     `xml:"Version,attr"`
	Elements []xElement `xml:"Element"`
}

type xElement struct {
	Name string `xml:"Name,attr"`
	Data struct {
		Image *xImage `xml:"Image"`
	} `xml:"Data"`
	Memory struct {
		Size string `xml:"Size,attr"`
		ID   string `xml:"MemoryBlockID,attr"`
	} `xml:"Memory"`
	Children []xElement `xml:"Children>Element"`
}

type xImage struct {
	Channels []xChannel `xml:"ImageDescription>Channels>ChannelDescription"`
	Dims     []xDim     `xml:"ImageDescription>Dimensions>DimensionDescription"`
}

type xChannel struct {
	Name       string `xml:"Name,attr"`
	Resolution string `xml:"Resolution,attr"`
	BytesInc   string `xml:"BytesInc,attr"`
	LUTName    string `xml:"LUTName,attr"`
	Props      []struct {
		Key   string `xml:"Key"`
		Value string `xml:"Value"`
	} `xml:"ChannelProperty"`
}

type xDim struct {
	DimID    string `xml:"DimID,attr"`
	N        string `xml:"NumberOfElements,attr"`
	Origin   string `xml:"Origin,attr"`
	Length   string `xml:"Length,attr"`
	Unit     string `xml:"Unit,attr"`
	BytesInc string `xml:"BytesInc,attr"`
}

// dim is a parsed DimensionDescription.
type dim struct {
	id             int
	n              int
	inc            int64
	length, origin float64
	unit           string
}

// dimNames names the dimensions by DimID, for notes.
var dimNames = map[int]string{1: "X", 2: "Y", 3: "Z", 4: "T", 5: "detection wavelength", 9: "excitation wavelength"}

func dimName(id int) string {
	if s, ok := dimNames[id]; ok {
		return s
	}
	return fmt.Sprintf("dimension %d", id)
}

// layout turns the description of the image called name, whose samples
// are in b, into its series (one per tile position) and their Metas.
func layout(x *xImage, name string, b block) ([]*image, []*loader.Meta, error) {
	fail := func(format string, args ...any) ([]*image, []*loader.Meta, error) {
		return nil, nil, formatError("image %q: %s", textutil.Clip(name), fmt.Sprintf(format, args...))
	}
	if len(x.Channels) == 0 {
		return fail("no channels described")
	}
	var dims []dim
	tiles := dim{id: 10, n: 1}
	for _, d := range x.Dims {
		v := dim{id: int(atoi64(d.DimID)), n: int(atoi64(d.N)), inc: atoi64(d.BytesInc), unit: strings.TrimSpace(d.Unit)}
		v.length, _ = strconv.ParseFloat(strings.TrimSpace(d.Length), 64)
		v.origin, _ = strconv.ParseFloat(strings.TrimSpace(d.Origin), 64)
		if v.id < 0 || v.n < 1 || v.inc < 0 || v.n > math.MaxInt32 {
			return fail("dimension %q of %q elements, %q bytes apart", textutil.Clip(d.DimID), textutil.Clip(d.N), textutil.Clip(d.BytesInc))
		}
		if v.id == 10 {
			tiles = v
			continue
		}
		dims = append(dims, v)
	}
	if len(dims) == 0 {
		return fail("no dimensions described")
	}
	// The channels.
	bits := atoi64(x.Channels[0].Resolution)
	var dt loader.DType
	switch {
	case bits >= 1 && bits <= 8:
		dt = loader.Uint8
	case bits > 8 && bits <= 16:
		dt = loader.Uint16
	default:
		return nil, nil, &loader.UnsupportedError{Format: "lif", Feature: fmt.Sprintf("samples of %q bits (image %q)", textutil.Clip(x.Channels[0].Resolution), textutil.Clip(name))}
	}
	ss := int64(dt.Size())
	chanOff := make([]int64, len(x.Channels))
	channels := make([]loader.Channel, len(x.Channels))
	maxChan := int64(0)
	for i, ch := range x.Channels {
		if r := atoi64(ch.Resolution); (r > 8) != (bits > 8) || r < 1 || r > 16 {
			return nil, nil, &loader.UnsupportedError{Format: "lif", Feature: fmt.Sprintf("channels of different sample sizes (image %q)", textutil.Clip(name))}
		}
		chanOff[i] = atoi64(ch.BytesInc)
		if strings.TrimSpace(ch.BytesInc) == "" {
			chanOff[i] = 0
		}
		if chanOff[i] < 0 {
			return fail("channel %d at byte %q", i, textutil.Clip(ch.BytesInc))
		}
		maxChan = max(maxChan, chanOff[i])
		channels[i] = channel(ch)
	}
	// The extent the samples reach, checked term by term so that nothing
	// overflows.
	span := maxChan + ss
	for _, d := range append(dims, tiles) {
		if d.n > 1 && d.inc > 0 && int64(d.n-1) > b.size/d.inc {
			return fail("%d samples %d bytes apart along %s overflow its %d-byte memory block", d.n, d.inc, dimName(d.id), b.size)
		}
		span += int64(d.n-1) * d.inc
	}
	if span > b.size {
		return fail("its samples reach byte %d of a %d-byte memory block", span, b.size)
	}
	span -= int64(tiles.n-1) * tiles.inc

	// The axes: the plane first, then the rest where they fit.
	type axis struct {
		letter byte
		d      dim
	}
	plane := []axis{{'X', dims[0]}, {'Y', dim{id: 2, n: 1}}}
	if len(dims) > 1 {
		plane[1].d = dims[1]
	}
	used := map[byte]dim{'X': plane[0].d, 'Y': plane[1].d}
	var rest []dim
	if len(dims) > 2 {
		rest = dims[2:]
	}
	var later []dim
	for _, d := range rest {
		if d.n == 1 {
			continue
		}
		want := byte('Z')
		if d.id == 4 {
			want = 'T'
		}
		if _, taken := used[want]; taken {
			later = append(later, d)
			continue
		}
		used[want] = d
	}
	// A wavelength that finds no free axis is the channel axis of an image
	// of one channel (an X Y Z T λ sweep): each wavelength a channel.
	var lambda *dim
	for _, d := range later {
		placed := false
		for _, l := range []byte{'Z', 'T'} {
			if _, taken := used[l]; !taken {
				used[l], placed = d, true
				break
			}
		}
		if !placed && lambda == nil && len(x.Channels) == 1 && (d.id == 5 || d.id == 9) {
			lambda, placed = &d, true
		}
		if !placed {
			return nil, nil, &loader.UnsupportedError{Format: "lif", Feature: fmt.Sprintf("more than four dimensions besides the channels (image %q)", textutil.Clip(name))}
		}
	}
	var axes string
	var shape, chunk []int
	var spacing, trans []float64
	var units []string
	var steps []int64
	cAxis := -1
	var moved []string
	for _, l := range []byte("TCZYX") {
		if l == 'C' {
			if lambda != nil {
				chanOff, channels = lambdaChannels(*lambda, chanOff[0], channels[0])
				moved = append(moved, "axis C holds the file's "+dimName(lambda.id))
			}
			if len(chanOff) > 1 {
				cAxis = len(axes)
				axes += "C"
				shape = append(shape, len(chanOff))
				chunk = append(chunk, 1)
				spacing, trans, units, steps = append(spacing, 1), append(trans, 0), append(units, ""), append(steps, 0)
			}
			continue
		}
		d, ok := used[l]
		if !ok {
			continue
		}
		axes += string(l)
		shape = append(shape, d.n)
		if l == 'X' || l == 'Y' {
			chunk = append(chunk, d.n)
		} else {
			chunk = append(chunk, 1)
		}
		sp, o, u := physical(d)
		spacing, trans, units, steps = append(spacing, sp), append(trans, o), append(units, u), append(steps, d.inc)
		if name := dimName(d.id); name != string(l) && (d.n > 1 || l != 'Y') {
			moved = append(moved, fmt.Sprintf("axis %c holds the file's %s", l, name))
		}
	}
	var notes []string
	if len(moved) > 0 {
		note := strings.Join(moved, "; ")
		if used['X'].id == 1 && used['Y'].id == 3 {
			note = "an XZ scan: " + note
		}
		notes = []string{note}
	}
	var imgs []*image
	var metas []*loader.Meta
	for m := 0; m < tiles.n; m++ {
		im := &image{
			name: name, start: b.at + int64(m)*tiles.inc, span: span,
			steps: steps, chanOff: chanOff, cAxis: cAxis, ss: int(ss),
		}
		if tiles.n > 1 {
			im.name = fmt.Sprintf("%s (tile %d of %d)", name, m+1, tiles.n)
		}
		meta := loader.NewMeta("lif", axes, shape, dt, chunk, spacing, units)
		meta.Levels[0].Translation = trans
		meta.Channels = channels
		meta.Notes = notes
		if err := meta.Validate(); err != nil {
			return fail("%v", err)
		}
		imgs, metas = append(imgs, im), append(metas, meta)
	}
	return imgs, metas, nil
}

// lambdaChannels makes each wavelength of d a channel: its samples d's step
// apart from off, named by its wavelength in nanometres when d gives a
// length unit, and otherwise shown as the file's one channel ch is but for
// its colour, which the viewer's own palette replaces so that the
// wavelengths can be told apart.
func lambdaChannels(d dim, off int64, ch loader.Channel) ([]int64, []loader.Channel) {
	offs := make([]int64, d.n)
	chans := make([]loader.Channel, d.n)
	f, kind := loader.UnitScale(rawvol.UnitName(d.unit))
	named := kind == loader.Length && !math.IsNaN(d.origin+d.length) && !math.IsInf(d.origin+d.length, 0)
	for i := range offs {
		offs[i] = off + int64(i)*d.inc
		chans[i] = ch
		chans[i].HasColor, chans[i].Color = false, [3]uint8{}
		chans[i].Label = fmt.Sprintf("%s %d", dimName(d.id), i)
		if named {
			m := d.origin
			if d.n > 1 {
				m += float64(i) * d.length / float64(d.n-1)
			}
			chans[i].Label = loader.FormatValue(math.Round(m*f*1e11)/100) + " nm"
		}
	}
	return offs, chans
}

// physical returns the spacing, origin and unit of a dimension: lengths
// in micrometres, times in seconds, spacing Length/(N-1).
func physical(d dim) (spacing, origin float64, unit string) {
	spacing = 1
	name := rawvol.UnitName(d.unit)
	f, ok := toStd[name]
	if !ok {
		return 1, 0, ""
	}
	if d.n > 1 && d.length > 0 && !math.IsInf(d.length, 0) {
		spacing = d.length / float64(d.n-1) * f
	} else if d.n > 1 {
		return 1, 0, ""
	}
	if !math.IsNaN(d.origin) && !math.IsInf(d.origin, 0) {
		origin = d.origin * f
	}
	if name == "second" || name == "millisecond" || name == "microsecond" || name == "minute" || name == "hour" {
		return spacing, origin, "second"
	}
	return spacing, origin, "micrometer"
}

// toStd converts a unit to micrometres (lengths) or seconds (times).
var toStd = map[string]float64{
	"meter": 1e6, "centimeter": 1e4, "millimeter": 1e3, "micrometer": 1, "nanometer": 1e-3,
	"second": 1, "millisecond": 1e-3, "microsecond": 1e-6, "minute": 60, "hour": 3600,
}

// lutColors are the LUT names LAS X gives channels, as colours.
var lutColors = map[string][3]uint8{
	"red": {255, 0, 0}, "green": {0, 255, 0}, "blue": {0, 0, 255},
	"gray": {255, 255, 255}, "grey": {255, 255, 255},
	"cyan": {0, 255, 255}, "magenta": {255, 0, 255}, "yellow": {255, 255, 0},
}

// channel is what a ChannelDescription says about showing its channel:
// its name (the Name attribute, else the DyeName property, else the LUT
// name) and the LUT's colour.
func channel(ch xChannel) loader.Channel {
	var c loader.Channel
	lut := strings.TrimSpace(ch.LUTName)
	c.Label = strings.TrimSpace(ch.Name)
	for _, p := range ch.Props {
		if c.Label == "" && strings.TrimSpace(p.Key) == "DyeName" {
			c.Label = strings.TrimSpace(p.Value)
		}
	}
	if c.Label == "" {
		c.Label = lut
	}
	c.Label = textutil.Clip(c.Label)
	c.Color, c.HasColor = lutColors[strings.ToLower(lut)]
	return c
}

// source is one series of an opened file.
type source struct{ *mapped.Series[*image] }

// ReadChunk fills dst with the plane at idx; see loader.Source.
func (s *source) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.Meta(), level, idx, dst); err != nil {
		return err
	}
	if err := s.read(idx, dst); err != nil {
		return formatError("reading samples: %v", err)
	}
	return nil
}

// read gathers the plane at idx from the mapping, under its guard.
func (s *source) read(idx []int, dst []byte) (err error) {
	defer s.File.Guard().Recover(&err)
	im := s.Image
	b, err := s.File.Bytes(im.start, im.span)
	if err != nil {
		return err
	}
	n := len(idx)
	base := int64(0)
	for i, v := range idx[:n-2] {
		if i == im.cAxis {
			base += im.chanOff[v]
		} else {
			base += int64(v) * im.steps[i]
		}
	}
	if im.cAxis < 0 {
		base += im.chanOff[0]
	}
	h, w := s.Meta().Shape[n-2], s.Meta().Shape[n-1]
	yinc, xinc := im.steps[n-2], im.steps[n-1]
	ss := im.ss
	rowBytes := w * ss
	for y := 0; y < h; y++ {
		row := base + int64(y)*yinc
		out := dst[y*rowBytes : (y+1)*rowBytes]
		if xinc == int64(ss) {
			copy(out, b[row:row+int64(rowBytes)])
			continue
		}
		for x := 0; x < w; x++ {
			at := row + int64(x)*xinc
			copy(out[x*ss:(x+1)*ss], b[at:at+int64(ss)])
		}
	}
	return nil
}

// atoi64 reads a decimal attribute; -1 when it is not one.
func atoi64(s string) int64 {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return -1
	}
	return v
}

func formatError(format string, args ...any) error {
	return loader.Errorf("lif", format, args...)
}
