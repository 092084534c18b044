package omezarr

import (
	"context"
	"fmt"

	"vastview/loader"
)

// View is an image presented as OME-Zarr without writing it anywhere: the
// metadata files Write would write, and each chunk read, transposed and
// encoded on demand as Write would store it (a server reads it this way).
// Its methods are safe for concurrent use.
type View struct {
	src   loader.Source
	lay   *layout
	opts  Options
	files map[string][]byte
	comp  compressor // nil: chunks raw
}

// ChunkBuffers are the scratch buffers of one View.Chunk call at a time,
// grown as needed and reused.
type ChunkBuffers struct{ b buffers }

// NewView presents every level of src (Meta().Levels) as OME-Zarr with
// opts as Write takes them; opts.Name must be set, Overwrite and Progress
// are ignored. Close releases its encoder.
func NewView(src loader.Source, opts Options) (*View, error) {
	if opts.Name == "" {
		return nil, fmt.Errorf("omezarr view: no name")
	}
	opts, err := opts.normalise(opts.Name)
	if err != nil {
		return nil, err
	}
	m := src.Meta()
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("source: %v", err)
	}
	if opts.Channels == nil && !m.RGB {
		opts.Channels = m.Channels
	}
	lay, err := newLayout(m)
	if err != nil {
		return nil, err
	}
	files, err := metadataFiles(lay, opts)
	if err != nil {
		return nil, err
	}
	comp, err := newCompressor(opts)
	if err != nil {
		return nil, err
	}
	return &View{src: src, lay: lay, opts: opts, files: files, comp: comp}, nil
}

// Files returns the metadata files (".zgroup", ".zattrs", "0/.zarray", ...
// for Zarr v2), keyed by their slash-separated path inside the image. The
// map and its contents must not be modified.
func (v *View) Files() map[string][]byte { return v.files }

// Levels returns each level's geometry in the written axis order.
func (v *View) Levels() []loader.Level { return v.lay.levels }

// Axes returns the written axis letters (OME-NGFF order).
func (v *View) Axes() string { return v.lay.axes }

// DType returns the sample type.
func (v *View) DType() loader.DType { return v.lay.dtype }

// Chunk returns the stored form of chunk idx (written axis order, within
// the level's grid) of level k: the full chunk shape in C order, samples
// beyond the array's edge the fill value 0, compressed with the view's
// codec. The bytes live in b and are valid until b is used again. A chunk
// the source does not hold yet gives an error that loader.IsNotStored
// reports.
func (v *View) Chunk(ctx context.Context, k int, idx []int, b *ChunkBuffers) ([]byte, error) {
	if k < 0 || k >= len(v.lay.src) {
		return nil, fmt.Errorf("no level %d", k)
	}
	l := &v.lay.src[k]
	if len(idx) != len(v.lay.perm) {
		return nil, fmt.Errorf("level %d chunk %v: want %d indices", k, idx, len(v.lay.perm))
	}
	si := make([]int, len(idx))
	v.lay.srcIndex(idx, si)
	grid := l.Grid()
	for i := range si {
		if si[i] < 0 || si[i] >= grid[i] {
			return nil, fmt.Errorf("level %d chunk %v: outside the grid", k, idx)
		}
	}
	n := l.ChunkBytes(v.lay.dtype)
	b.b.raw = grow(b.b.raw, n)
	if err := v.src.ReadChunk(ctx, k, si, b.b.raw); err != nil {
		return nil, err
	}
	data := b.b.raw
	if !v.lay.same {
		b.b.perm = grow(b.b.perm, n)
		v.lay.transpose(b.b.perm, b.b.raw, l.Chunk)
		data = b.b.perm
	}
	if v.comp != nil {
		enc, err := v.comp.compress(data, b.b.enc)
		if err != nil {
			return nil, fmt.Errorf("compressing level %d chunk %v: %v", k, idx, err)
		}
		b.b.enc, data = enc, enc
	}
	return data, nil
}

// Close releases the view's encoder; the source stays open.
func (v *View) Close() {
	if v.comp != nil {
		v.comp.close()
	}
}
