// Package loader opens image volumes and movies lazily behind one Source
// interface. Formats register themselves as data (see Format and Register)
// and the registry decides which one reads a path from all their claims
// (see Open); a file name's extension is only a hint.
//
// A Source describes an N-dimensional array whose axes are letters from
// "TCZYX" in storage order, always ending in "YX", and reads it one chunk
// (the format's natural read unit: a TIFF page or tile, a Zarr chunk, a
// video frame) at a time into a buffer the caller provides.
package loader

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Source is an opened image: metadata, and chunks read on demand.
// Implementations are safe for concurrent use by multiple goroutines.
type Source interface {
	// Meta describes the array. The returned value must not be modified.
	Meta() *Meta
	// ReadChunk fills dst with the chunk at grid index idx (one entry per
	// axis, in Meta().Axes order) of the given stored level. dst holds
	// Level.ChunkBytes() bytes: the full chunk shape in C order over the
	// axes, samples little-endian; samples beyond the array's edge are zero.
	// It returns ctx.Err() if ctx ends before the data is available.
	ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error
	// Close releases the source's files and mappings.
	Close() error
}

// Meta is what a Source knows about its array.
type Meta struct {
	Format  string    // short format name, e.g. "tiff", "ome-tiff", "nifti"
	Axes    string    // letters from "TCZYX" in storage order, ending in "YX"
	Shape   []int     // samples per axis, in Axes order
	DType   DType     // sample type
	Spacing []float64 // physical size of one step per axis (1 when unknown)
	Units   []string  // unit per axis ("" when unknown), NGFF names such as "micrometer"
	Levels  []Level   // levels the source stores, level 0 (full resolution) first

	// DataFiles lists the files other than the opened one that the source
	// reads, as it opens them (a detached header's data files, which it
	// may name anywhere; the header of a NIfTI .img): nil when it reads
	// only the opened file.
	DataFiles []string

	// ValueScale, when non-nil, maps stored values to physical ones
	// (value = Slope*stored + Intercept), as NIfTI's scl_slope/scl_inter.
	ValueScale *ValueScale
	// ValueUnit names the unit of the values ValueScale gives ("HU" for
	// CT's Hounsfield units), "" when the file does not say.
	ValueUnit string
	// Modality is the kind of acquisition the file says it holds, as
	// DICOM's Modality ("CT", "MR", "PT", ...), "" when it does not say.
	Modality string
	// Anatomy, when the file places its samples in a patient or scanner,
	// maps sample indices to world millimetres (nil when it does not say:
	// microscopy, MRC, a NIfTI with neither sform nor qform).
	Anatomy *Anatomy
	// Label is true when the data is a label image (mode, not mean, when
	// downsampling).
	Label bool
	// Palette, for palette-colour images, maps a stored index to RGB.
	Palette [][3]uint16
	// RGB is true when the C axis holds the red, green and blue samples
	// of colour pixels (an RGB TIFF, a colour video): one picture, not
	// three channels.
	RGB bool
	// Channels, when the file describes them, holds display defaults per
	// position on the C axis (or one entry for data without a C axis).
	Channels []Channel
	// ChannelMode is how the file says to show its channels at first:
	// ChannelsComposite, ChannelsColor, ChannelsGray, or "" when it does
	// not say.
	ChannelMode string
	// Labels lists the label images the file offers to lay over it
	// (OME-Zarr's labels group), each as a path relative to the one
	// opened, "/"-separated.
	Labels []string
	// Synthetic is true when the samples are computed on read rather than
	// stored (the built-in demo): cheap to read again, so computed levels
	// are neither built in the background nor kept in the disk cache.
	Synthetic bool
	// Series lists every image of a file that holds several (nil for one
	// image); SeriesIndex is the one this source is. Such a source is a
	// SeriesOpener.
	Series      []Series
	SeriesIndex int
	// Notes are facts about the data that fit no field above, one short
	// line each ("Bayer pattern GBRG, shown as stored"); info prints them.
	Notes []string
}

// Channel is what a file says about displaying one channel.
type Channel struct {
	Label string // name, e.g. "DAPI" ("" when unknown)
	// Color is the channel's display colour; HasColor says it was given.
	Color    [3]uint8
	HasColor bool
	// Lo and Hi are the default display window; HasWindow says it was given.
	Lo, Hi    float64
	HasWindow bool
	// Hidden says the file shows the channel switched off at first
	// (OME-Zarr omero "active": false).
	Hidden bool
	// LUT, when the file gives the channel a colour table of its own
	// (ImageJ's luts), maps display intensity 0..255 to a colour; Color is
	// then its brightest entry.
	LUT *[256][3]uint8
}

// How a file says its channels are shown at first (Meta.ChannelMode), as
// ImageJ's hyperstack modes.
const (
	ChannelsComposite = "composite" // every channel in its colour, added
	ChannelsColor     = "color"     // one channel at a time, in its colour
	ChannelsGray      = "grayscale" // one channel at a time, in gray
)

// ValueScale is a linear map from stored sample values to physical values.
type ValueScale struct{ Slope, Intercept float64 }

// Value returns the physical value of stored value v: Slope·v + Intercept.
// A nil ValueScale leaves v as it is.
func (s *ValueScale) Value(v float64) float64 {
	if s == nil {
		return v
	}
	return s.Slope*v + s.Intercept
}

// Stored returns the stored value whose physical value is p, the inverse
// of Value (p itself for a nil ValueScale or a zero slope).
func (s *ValueScale) Stored(p float64) float64 {
	if s == nil || s.Slope == 0 {
		return p
	}
	return (p - s.Intercept) / s.Slope
}

// Level is one stored resolution level.
type Level struct {
	Shape       []int     // samples per axis
	Chunk       []int     // chunk (natural read unit) shape per axis
	Scale       []float64 // physical size of one step per axis
	Translation []float64 // physical position of the first sample's centre per axis
}

// AxisIndex returns the position of axis letter a in m.Axes, or -1.
func (m *Meta) AxisIndex(a byte) int { return strings.IndexByte(m.Axes, a) }

// Size returns the length of axis a, or 1 if the array has no such axis.
func (m *Meta) Size(a byte) int {
	if i := m.AxisIndex(a); i >= 0 {
		return m.Shape[i]
	}
	return 1
}

// Grid returns the number of chunks along each axis.
func (l *Level) Grid() []int {
	g := make([]int, len(l.Shape))
	for i := range l.Shape {
		g[i] = (l.Shape[i] + l.Chunk[i] - 1) / l.Chunk[i]
	}
	return g
}

// ChunkSamples is the number of samples in one (full) chunk.
func (l *Level) ChunkSamples() int {
	n := 1
	for _, c := range l.Chunk {
		n *= c
	}
	return n
}

// ChunkBytes is the size in bytes of one chunk of dtype d.
func (l *Level) ChunkBytes(d DType) int { return l.ChunkSamples() * d.Size() }

// NewMeta fills in the defaults of a single-level Meta: unit spacing where
// spacing is nil, empty units, zero translation, and Levels[0] from shape and
// chunk.
func NewMeta(format, axes string, shape []int, dt DType, chunk []int, spacing []float64, units []string) *Meta {
	n := len(axes)
	if spacing == nil {
		spacing = make([]float64, n)
		for i := range spacing {
			spacing[i] = 1
		}
	}
	if units == nil {
		units = make([]string, n)
	}
	return &Meta{
		Format: format, Axes: axes, Shape: shape, DType: dt,
		Spacing: spacing, Units: units,
		Levels: []Level{{
			Shape: shape, Chunk: chunk,
			Scale:       append([]float64(nil), spacing...),
			Translation: make([]float64, n),
		}},
	}
}

// Validate checks that m is self-consistent: axes well formed, every length
// positive, chunks within shapes, per-axis slices of the right length, and
// the total byte size representable.
func (m *Meta) Validate() error {
	n := len(m.Axes)
	if n < 2 || !strings.HasSuffix(m.Axes, "YX") {
		return fmt.Errorf("axes %q must end in YX", m.Axes)
	}
	for i := 0; i < n; i++ {
		if !strings.ContainsRune("TCZYX", rune(m.Axes[i])) || strings.IndexByte(m.Axes, m.Axes[i]) != i {
			return fmt.Errorf("axes %q: bad or repeated axis %q", m.Axes, m.Axes[i])
		}
	}
	if m.DType.Size() == 0 {
		return fmt.Errorf("no sample type")
	}
	if len(m.Series) > 0 && (m.SeriesIndex < 0 || m.SeriesIndex >= len(m.Series)) {
		return fmt.Errorf("series %d of %d", m.SeriesIndex, len(m.Series))
	}
	if len(m.Shape) != n || len(m.Spacing) != n || len(m.Units) != n || len(m.Levels) == 0 {
		return fmt.Errorf("metadata lengths do not match axes %q", m.Axes)
	}
	for li, l := range m.Levels {
		if len(l.Shape) != n || len(l.Chunk) != n || len(l.Scale) != n || len(l.Translation) != n {
			return fmt.Errorf("level %d: lengths do not match axes %q", li, m.Axes)
		}
		total, chunk := uint64(m.DType.Size()), uint64(m.DType.Size())
		for i := 0; i < n; i++ {
			if l.Shape[i] <= 0 || l.Chunk[i] <= 0 {
				return fmt.Errorf("level %d: non-positive size on axis %c", li, m.Axes[i])
			}
			// Checked before multiplying, so that nothing overflows.
			if uint64(l.Shape[i]) > maxArrayBytes/total {
				return fmt.Errorf("level %d: array of %v samples is too large", li, l.Shape)
			}
			if uint64(l.Chunk[i]) > maxChunkBytes/chunk {
				return fmt.Errorf("level %d: chunk of %v is too large", li, l.Chunk)
			}
			total *= uint64(l.Shape[i])
			chunk *= uint64(l.Chunk[i])
		}
	}
	return nil
}

// Limits on what a Source may describe: 1 PiB in all, 2 GiB per chunk.
const (
	maxArrayBytes = 1 << 50
	maxChunkBytes = 1 << 31
)

// IsPattern reports whether path is a glob pattern rather than a file name.
func IsPattern(path string) bool { return strings.ContainsAny(path, "*?[") }

// IsURL reports whether path is a network address: http://, https://, or
// an object store's s3://, s3+https://, s3+http:// or gs://.
func IsURL(path string) bool {
	p := strings.ToLower(path)
	for _, s := range []string{"http://", "https://", "s3://", "s3+https://", "s3+http://", "gs://"} {
		if strings.HasPrefix(p, s) {
			return true
		}
	}
	return false
}

// Open opens the file, folder, glob pattern or URL at path with the format
// that reads it. Every registered format's claim is checked once: a file by
// its signatures and content (Format.Magic, Format.Sniff), else by its name
// for formats without a signature (Format.ByName); a folder by its marker
// files (Format.Markers), else by its entries (Format.Folder); a glob
// pattern or a URL by the formats that take them. One format claiming it
// reads it; where several do, one reads it only when a precedence given to
// Arrange says so, else the error (an *AmbiguousError) names them; when
// none does, the error wraps ErrFormat and names the formats tried (see
// Detect). Opening stops with ctx.Err() when ctx ends first. Errors do not
// repeat the path; they keep their cause (errors.Is(err, fs.ErrNotExist)
// for a missing file). A path that names
// neither a regular file nor a folder (a named pipe, a device, a socket,
// which reading could block on or never finish) is refused with
// ErrNotRegular before it is opened.
//
// A path may end in a series selector, "cells.lif#2" or "cells.lif#Name"
// (see SplitSelector): the source is then that image of the file.
func Open(ctx context.Context, path string) (Source, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, sel := SplitSelector(path)
	src, err := open(ctx, path)
	if err != nil {
		return nil, err
	}
	return OpenSelected(ctx, src, sel)
}

// open is Open without a series selector.
func open(ctx context.Context, path string) (Source, error) {
	head, err := readHead(path)
	if err != nil {
		return nil, err
	}
	f, err := detect(path, head)
	if err != nil {
		return nil, err
	}
	src, err := f.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := src.Meta().Validate(); err != nil {
		src.Close()
		return nil, &FormatError{Format: f.Name, Msg: err.Error()}
	}
	return src, nil
}

// HasExt reports whether path ends in one of exts, ignoring case.
func HasExt(path string, exts ...string) bool {
	p := strings.ToLower(filepath.Base(path))
	for _, e := range exts {
		if strings.HasSuffix(p, e) {
			return true
		}
	}
	return false
}
