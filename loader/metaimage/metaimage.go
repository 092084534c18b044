// Package metaimage reads ITK MetaImage files: .mha (header and data in
// one file, ElementDataFile = LOCAL) and .mhd (data in another file, in a
// LIST of files, or in files named by a printf pattern), raw or zlib
// compressed (CompressedData), binary or text, either byte order, 2 to 4
// dimensions, with ElementNumberOfChannels interleaved channels. It
// registers the format "metaimage" with the loader.
//
// DimSize lists X first, so axes are presented as "YX", "ZYX" or "TZYX"
// (the fourth dimension is time), with a C axis before Y for multi-channel
// pixels (de-interleaved). Spacing comes from ElementSpacing (or
// ElementSize) and the translation from Offset (or Position, Origin);
// MetaImage records no units. TransformMatrix (or AnatomicalOrientation)
// with Offset and the spacing gives Meta.Anatomy in LPS patient
// coordinates, as ITK reads them: ITK takes every MetaImage to lie in LPS
// along its TransformMatrix (the identity when the header has none), so
// any TransformMatrix, the identity included, gives an orientation (ITK
// writes one, with AnatomicalOrientation, in every file it saves); a
// header with neither has none, since writers outside the medical world
// leave both out.
//
// Raw data is mapped and read one plane per chunk; compressed data in one
// file is decoded once in the background (see loader/internal/stream).
package metaimage

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"vastview/base/textutil"
	"vastview/loader"
	"vastview/loader/internal/rawvol"
	"vastview/loader/internal/stream"
)

// format is MetaImage as the registry knows it: header lines ("Key =
// Value", with NDims or ObjectType = Image among them).
var format = loader.Format{
	Name: "metaimage", Titles: []string{"MetaImage"}, Open: Open, Exts: []string{".mha", ".mhd"},
	Sniff: func(_ string, head []byte) bool { return looksLikeHeader(head) },
}

func init() { loader.Register(format) }

// Match reports whether head starts with MetaImage header lines ("Key =
// Value", with NDims or ObjectType = Image among them). It is safe for
// concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// Open opens a .mha or .mhd file. The returned Source is safe for
// concurrent use.
func Open(ctx context.Context, path string) (loader.Source, error) {
	h, err := stream.ReadHeaderFile(path, syntax, func(err error) error { return formatError("%v", err) })
	if err != nil {
		return nil, err
	}
	if _, ok := h.Fields["elementdatafile"]; !ok {
		return nil, formatError("the header has no ElementDataFile")
	}
	return open(ctx, path, h)
}

var elementTypes = map[string]loader.DType{
	"MET_CHAR": loader.Int8, "MET_UCHAR": loader.Uint8,
	"MET_SHORT": loader.Int16, "MET_USHORT": loader.Uint16,
	"MET_INT": loader.Int32, "MET_UINT": loader.Uint32,
	"MET_LONG": loader.Int32, "MET_ULONG": loader.Uint32,
	"MET_FLOAT": loader.Float32, "MET_DOUBLE": loader.Float64,
	"MET_LONG_LONG": loader.Int64, "MET_ULONG_LONG": loader.Uint64,
}

func elementType(s string) (loader.DType, error) {
	name := strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "_ARRAY")
	if dt, ok := elementTypes[name]; ok {
		return dt, nil
	}
	switch name {
	case "":
		return 0, formatError("the header has no ElementType")
	}
	return 0, unsupported(fmt.Sprintf("element type %q", textutil.Clip(s)))
}

func open(ctx context.Context, path string, h *header) (loader.Source, error) {
	if ot, ok := h.Fields["objecttype"]; ok && !strings.EqualFold(ot, "image") {
		return nil, unsupported(fmt.Sprintf("object type %q", textutil.Clip(ot)))
	}
	dt, err := elementType(h.Fields["elementtype"])
	if err != nil {
		return nil, err
	}
	lay, err := buildLayout(h, dt)
	if err != nil {
		return nil, err
	}
	parts, err := dataParts(path, h, lay, dt)
	if err != nil {
		return nil, err
	}
	note, err := rawvol.Companions(ctx, path, parts)
	if err != nil {
		return nil, err
	}
	if note != "" {
		lay.meta.Notes = append(lay.meta.Notes, note)
	}
	data, err := rawvol.Open(parts, lay.bytes)
	if err != nil {
		return nil, formatError("%v", err)
	}
	lay.meta.DataFiles = rawvol.DataFiles(path, parts)
	return rawvol.New(lay.meta, data, lay.bigEndian && !lay.text, lay.interleaved)
}

// layout is the array a header describes, as presented.
type layout struct {
	meta        *loader.Meta
	dims        []int64 // DimSize, X first
	interleaved bool
	bigEndian   bool
	text        bool // BinaryData = False
	bytes       int64
}

func buildLayout(h *header, dt loader.DType) (*layout, error) {
	nd, err := strconv.Atoi(h.Fields["ndims"])
	if err != nil {
		return nil, formatError("NDims %q is not a number", textutil.Clip(h.Fields["ndims"]))
	}
	if nd < 2 || nd > 4 {
		return nil, unsupported(fmt.Sprintf("%d-dimensional data", nd))
	}
	dims, err := ints(h.Fields["dimsize"], nd, "DimSize")
	if err != nil {
		return nil, err
	}
	channels := int64(1)
	if s, ok := h.Fields["elementnumberofchannels"]; ok {
		c, err := ints(s, 1, "ElementNumberOfChannels")
		if err != nil {
			return nil, err
		}
		channels = c[0]
	}
	spacing := h.Fields["elementspacing"]
	if spacing == "" {
		spacing = h.Fields["elementsize"]
	}
	sp, err := floats(spacing, nd, "ElementSpacing")
	if err != nil {
		return nil, err
	}
	origin := h.Fields["offset"]
	for _, k := range []string{"position", "origin"} {
		if origin == "" {
			origin = h.Fields[k]
		}
	}
	or, err := floats(origin, nd, "Offset")
	if err != nil {
		return nil, err
	}
	l := &layout{dims: dims, interleaved: channels > 1}
	l.meta = presentAxes(dims, channels, sp, or, dt)
	l.meta.Anatomy = anatomyOf(h, nd, sp, or)
	if l.bytes, err = rawvol.ArrayBytes(l.meta.Shape, dt); err != nil {
		return nil, formatError("%v", err)
	}
	if err := l.meta.Validate(); err != nil {
		return nil, formatError("%v", err)
	}
	msb := h.Fields["binarydatabyteordermsb"]
	if msb == "" {
		msb = h.Fields["elementbyteordermsb"]
	}
	l.bigEndian = strings.EqualFold(msb, "true")
	return l, nil
}

// presentAxes orders the axes slowest first: T, Z, then C (interleaved
// channels), Y, X.
func presentAxes(dims []int64, channels int64, sp, or []float64, dt loader.DType) *loader.Meta {
	var axes []byte
	var shape []int
	var spacing, trans []float64
	for i := len(dims) - 1; i >= 0; i-- {
		if i == 1 && channels > 1 {
			axes = append(axes, 'C')
			shape = append(shape, int(channels))
			spacing = append(spacing, 1)
			trans = append(trans, 0)
		}
		axes = append(axes, "XYZT"[i])
		shape = append(shape, int(dims[i]))
		s := 1.0
		if v := math.Abs(sp[i]); v > 0 && !math.IsInf(v, 0) {
			s = v
		}
		spacing = append(spacing, s)
		t := or[i]
		if math.IsNaN(t) || math.IsInf(t, 0) {
			t = 0
		}
		trans = append(trans, t)
	}
	m := loader.NewMeta("metaimage", string(axes), shape, dt, rawvol.PlaneChunk(shape, channels > 1), spacing, nil)
	m.Levels[0].Translation = trans
	return m
}

// ints parses n positive integers (lengths); an empty s is an error.
func ints(s string, n int, what string) ([]int64, error) {
	f := strings.Fields(s)
	if len(f) != n {
		return nil, formatError("%s %q does not give %d numbers", what, textutil.Clip(s), n)
	}
	out := make([]int64, n)
	for i, w := range f {
		v, err := strconv.ParseInt(w, 10, 64)
		if err != nil || v < 1 || v > 1<<40 {
			return nil, formatError("%s %q is not a list of lengths", what, textutil.Clip(s))
		}
		out[i] = v
	}
	return out, nil
}

// floats parses n numbers; an empty s gives n ones (spacing) or zeros (origin).
func floats(s string, n int, what string) ([]float64, error) {
	out := make([]float64, n)
	if strings.TrimSpace(s) == "" {
		if what == "ElementSpacing" {
			for i := range out {
				out[i] = 1
			}
		}
		return out, nil
	}
	f := strings.Fields(s)
	if len(f) < n {
		return nil, formatError("%s %q does not give %d numbers", what, textutil.Clip(s), n)
	}
	for i := range out {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return nil, formatError("%s %q is not a list of numbers", what, textutil.Clip(s))
		}
		out[i] = v
	}
	return out, nil
}

// dataParts says where the data is: after the header (LOCAL), in one
// named file, or split across files (LIST or a pattern).
func dataParts(path string, h *header, lay *layout, dt loader.DType) ([]rawvol.Part, error) {
	var codec stream.Codec
	compressed := strings.EqualFold(h.Fields["compresseddata"], "true")
	switch {
	case compressed:
		codec = stream.Zlib
	case strings.EqualFold(h.Fields["binarydata"], "false"):
		codec, lay.text = stream.Text(dt), true
	}
	skip := int64(0)
	if s, ok := h.Fields["headersize"]; ok {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < -1 {
			return nil, formatError("HeaderSize %q is not a byte count", textutil.Clip(s))
		}
		skip = v
	}
	encoded := int64(0)
	if s, ok := h.Fields["compresseddatasize"]; ok && compressed {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return nil, formatError("CompressedDataSize %q is not a byte count", textutil.Clip(s))
		}
		encoded = v
	}
	if skip == -1 && lay.text {
		return nil, unsupported("text data at the end of the file (HeaderSize = -1)")
	}
	names, err := dataFiles(h, lay.dims)
	if err != nil {
		return nil, err
	}
	part := rawvol.Part{Codec: codec, ByteSkip: skip}
	if len(names) == 1 {
		part.Encoded = encoded
		if names[0] == "LOCAL" {
			part.Path = path
			if skip == 0 {
				part.Start = h.End
			}
			return []rawvol.Part{part}, nil
		}
	}
	parts := make([]rawvol.Part, len(names))
	for i, n := range names {
		parts[i] = part
		parts[i].Path = resolve(path, n)
	}
	return parts, nil
}

// dataFiles returns the data file names ("LOCAL" for data after the
// header), checking that a split into files matches the dimensions.
func dataFiles(h *header, dims []int64) ([]string, error) {
	value := h.Fields["elementdatafile"]
	f := strings.Fields(value)
	isList := len(f) > 0 && f[0] == "LIST"
	isPattern := len(f) >= 4 && strings.Contains(f[0], "%")
	switch {
	case value == "":
		return nil, formatError("ElementDataFile is empty")
	case strings.EqualFold(value, "LOCAL"):
		return []string{"LOCAL"}, nil
	case !isList && !isPattern:
		return []string{value}, nil
	}
	subdim := len(dims) - 1
	at := 1
	if isPattern {
		at = 4
	}
	if len(f) > at {
		var err error
		if subdim, err = parseSubdim(f[at], len(dims)); err != nil {
			return nil, err
		}
	}
	want := int64(1)
	for _, d := range dims[subdim:] {
		if want *= d; want > rawvol.MaxFiles {
			return nil, formatError("the sizes need more than %d data files", rawvol.MaxFiles)
		}
	}
	names := h.List
	if isPattern {
		var err error
		if names, err = rawvol.Pattern(f[0], f[1], f[2], f[3], int(want)); err != nil {
			return nil, formatError("%v", err)
		}
	}
	if int64(len(names)) != want {
		return nil, formatError("the header names %d data files, its sizes need %d", len(names), want)
	}
	return names, nil
}

func parseSubdim(s string, nd int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > nd {
		return 0, formatError("data file dimension %q is not 1..%d", textutil.Clip(s), nd)
	}
	return v, nil
}

func resolve(headerPath, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(filepath.Dir(headerPath), name)
}

func formatError(format string, args ...any) error {
	return loader.Errorf("metaimage", format, args...)
}

func unsupported(feature string) error {
	return &loader.UnsupportedError{Format: "metaimage", Feature: feature}
}
