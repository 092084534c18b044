// Package nrrd reads NRRD files (teem's "nearly raw raster data"): attached
// (.nrrd) and detached (.nhdr) headers, data in one file or split across
// files ("data file: LIST" or a printf pattern), encodings raw, gzip,
// bzip2, ascii and hex, either byte order, 2 to 5 dimensions. It registers
// the format "nrrd" with the loader.
//
// NRRD's first axis is the fastest. Axes are presented in storage order,
// slowest first: kinds decide which axis is time (T) and which holds
// channels (C: vector, colour, list...), the two fastest other axes are X
// and Y, the next Z. Without kinds a 4-D or 5-D array with a fastest axis
// of at most 4 samples is taken as channels, and a fourth spatial-looking
// axis as time. A fastest channel axis is de-interleaved: it is presented
// before Y. Spacing comes from "spacings" or the length of the "space
// directions"; units from "units" or "space units"; the translation from
// "space origin" projected on each axis' direction. An anatomical "space"
// (RAS, LAS, LPS) with "space directions" gives Meta.Anatomy: LPS patient
// coordinates as written, RAS and LAS in scanner RAS.
//
// Raw data is mapped and read one plane per chunk. Encoded data in one file
// is decoded once in the background (see loader/internal/stream); encoded
// data split across files is decoded file by file on each read.
package nrrd

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

// format is NRRD as the registry knows it: a first line that is a NRRD
// magic ("NRRD000" and a digit).
var format = loader.Format{
	Name: "nrrd", Titles: []string{"NRRD"}, Open: Open, Exts: []string{".nrrd", ".nhdr"},
	Sniff: func(_ string, head []byte) bool { return headerText(head) },
}

func init() { loader.Register(format) }

// Match reports whether head starts with a NRRD magic line ("NRRD000"
// and a digit). It is safe for concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// Open opens a .nrrd or .nhdr file. The returned Source is safe for
// concurrent use.
func Open(ctx context.Context, path string) (loader.Source, error) {
	h, err := stream.ReadHeaderFile(path, syntax, wrap)
	if err != nil {
		return nil, err
	}
	return open(ctx, path, h)
}

func open(ctx context.Context, path string, h *header) (loader.Source, error) {
	dt, err := sampleType(h.Fields["type"])
	if err != nil {
		return nil, err
	}
	ax, err := axesOf(h)
	if err != nil {
		return nil, err
	}
	if err := assignRoles(ax); err != nil {
		return nil, err
	}
	g, err := geometryOf(h)
	if err != nil {
		return nil, err
	}
	meta, interleaved := buildMeta(ax, dt, g)
	meta.Anatomy = anatomyOf(h, ax, g)
	total, err := rawvol.ArrayBytes(meta.Shape, dt)
	if err != nil {
		return nil, formatError("%v", err)
	}
	if err := meta.Validate(); err != nil {
		return nil, formatError("%v", err)
	}
	enc, decodedSkip, err := codec(h.Fields["encoding"], dt)
	if err != nil {
		return nil, err
	}
	big, err := bigEndian(h.Fields["endian"], dt, enc)
	if err != nil {
		return nil, err
	}
	parts, err := dataParts(path, h, ax)
	if err != nil {
		return nil, err
	}
	note, err := rawvol.Companions(ctx, path, parts)
	if err != nil {
		return nil, err
	}
	if note != "" {
		meta.Notes = append(meta.Notes, note)
	}
	lineSkip, byteSkip, err := skips(h)
	if err != nil {
		return nil, err
	}
	if byteSkip < 0 && !enc.Raw() {
		return nil, unsupported(fmt.Sprintf("byte skip -1 with %s encoding", enc.Name))
	}
	for i := range parts {
		p := &parts[i]
		p.Codec, p.LineSkip, p.ByteSkip = enc, lineSkip, byteSkip
		if decodedSkip {
			p.ByteSkip, p.DecodedSkip = 0, byteSkip
		}
	}
	data, err := rawvol.Open(parts, total)
	if err != nil {
		return nil, wrap(err)
	}
	meta.DataFiles = rawvol.DataFiles(path, parts)
	return rawvol.New(meta, data, big && enc.Name != "text", interleaved)
}

// axesOf reads the per-axis fields.
func axesOf(h *header) ([]fileAxis, error) {
	dim, err := strconv.Atoi(strings.TrimSpace(h.Fields["dimension"]))
	if err != nil {
		return nil, formatError("the dimension field is missing or bad")
	}
	if dim < 1 || dim > 16 {
		return nil, formatError("dimension %d is not 1..16", dim)
	}
	if dim < 2 || dim > 5 {
		return nil, unsupported(fmt.Sprintf("%d-dimensional data", dim))
	}
	sizes, err := ints(h.Fields["sizes"])
	if err != nil || len(sizes) != dim {
		return nil, formatError("sizes %q do not give %d lengths", textutil.Clip(h.Fields["sizes"]), dim)
	}
	ax := make([]fileAxis, dim)
	for i, s := range sizes {
		if s < 1 || s > 1<<40 {
			return nil, formatError("size %d of axis %d", s, i)
		}
		ax[i] = fileAxis{size: int(s), spacing: math.NaN()}
	}
	if err := perAxis(h, ax); err != nil {
		return nil, err
	}
	return ax, nil
}

// perAxis fills kinds, spacings, units and space directions into ax.
func perAxis(h *header, ax []fileAxis) error {
	dim := len(ax)
	if s, ok := h.Fields["kinds"]; ok {
		k := lowerKinds(strs(s))
		if len(k) != dim {
			return formatError("kinds %q do not give %d entries", textutil.Clip(s), dim)
		}
		for i := range ax {
			ax[i].kind = k[i]
		}
	}
	if s, ok := h.Fields["spacings"]; ok {
		v, err := floats(s)
		if err != nil || len(v) != dim {
			return formatError("spacings %q do not give %d numbers", textutil.Clip(s), dim)
		}
		for i := range ax {
			ax[i].spacing = v[i]
		}
	}
	if s, ok := h.Fields["units"]; ok {
		u := strs(s)
		for i := range ax {
			if i < len(u) {
				ax[i].unit = u[i]
			}
		}
	}
	if s, ok := h.Fields["space directions"]; ok {
		v, err := vectors(s)
		if err != nil {
			return formatError("space directions: %v", err)
		}
		if len(v) != dim {
			return formatError("space directions give %d entries for %d axes", len(v), dim)
		}
		for i := range ax {
			ax[i].dir, ax[i].noDir = v[i], v[i] == nil
		}
	}
	return nil
}

// geometryOf reads "space origin" and "space units".
func geometryOf(h *header) (geometry, error) {
	var g geometry
	if s, ok := h.Fields["space origin"]; ok {
		v, err := vectors(s)
		if err != nil || len(v) != 1 || v[0] == nil {
			return g, formatError("space origin %q is not a vector", textutil.Clip(s))
		}
		g.origin = v[0]
	}
	if s, ok := h.Fields["space units"]; ok {
		g.spaceUnits = strs(s)
	}
	return g, nil
}

// skips reads "line skip" and "byte skip".
func skips(h *header) (lines int, bytes int64, err error) {
	if s, ok := h.Fields["line skip"]; ok {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return 0, 0, formatError("line skip %q is not a line count", textutil.Clip(s))
		}
		lines = v
	}
	if s, ok := h.Fields["byte skip"]; ok {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < -1 {
			return 0, 0, formatError("byte skip %q is not a byte count", textutil.Clip(s))
		}
		bytes = v
	}
	return lines, bytes, nil
}

// wrap makes a plain error a FormatError.
func wrap(err error) error {
	switch err.(type) {
	case *loader.FormatError, *loader.UnsupportedError:
		return err
	}
	return formatError("%v", err)
}

// resolve returns a data file name relative to the header's folder.
func resolve(headerPath, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(filepath.Dir(headerPath), name)
}
