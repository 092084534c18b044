// Package omezarr writes a loader.Source, every level it presents, as an
// OME-Zarr multiscale image: OME-NGFF 0.4 on Zarr v2 or OME-NGFF 0.5 on
// Zarr v3, with zstd, gzip or no compression.
//
// The output appears all at once: it is written into a temporary sibling
// folder and renamed onto its name when complete, so an interrupted or
// failed write never leaves a half-written image under that name; the
// next write of that name removes the temporary folder of a killed one.
package omezarr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"vastview/loader"
)

// ErrExists means that the output already exists and Options.Overwrite is
// not set.
var ErrExists = errors.New("output already exists")

// Options controls Write. The zero value writes OME-NGFF 0.4 on Zarr v2
// with zstd level 1, one worker per CPU.
type Options struct {
	// Version is the Zarr format: 2 (OME-NGFF 0.4, the default when 0) or
	// 3 (OME-NGFF 0.5).
	Version int
	// Codec is the chunk compression: "zstd" (the default when ""),
	// "gzip" or "none".
	Codec string
	// Level is the compression level (zstd 1-22, gzip 1-9); 0 means 1,
	// the numcodecs default, which favours speed.
	Level int
	// Workers is the number of chunks read, compressed and written at
	// once, which also bounds the chunk buffers in memory; 0 means
	// GOMAXPROCS.
	Workers int
	// Progress, when set, is called after each chunk with the number of
	// chunks done and the total over all levels. Calls come from worker
	// goroutines, one at a time, with done increasing.
	Progress func(done, total int)
	// Shard, for Zarr v3, stores the chunks in shards (the
	// sharding_indexed codec) of this many samples along Z, Y and X
	// (rounded up to whole chunks, no more than a level needs); an entry
	// of 0 sizes that axis automatically (see DefaultShardBytes). nil
	// stores each chunk as an object of its own.
	Shard []int
	// LevelDone, when set, is called once all the chunks of a level that
	// the write does (all of them, or a part's) are done, with their
	// number and their size before compression. Calls come from worker
	// goroutines, possibly at once.
	LevelDone func(level, chunks int, bytes int64)
	// Name is the multiscale image's name; "" means the output's base
	// name without its .ome.zarr or .zarr extension.
	Name string
	// Type is the downsampling method recorded in the multiscales "type"
	// field (such as "mean" or "mode"); omitted when "".
	Type string
	// Overwrite allows replacing an existing Zarr folder at the output.
	// The old one is removed only after the new one is in place.
	Overwrite bool
	// Part and Parts, when Parts > 0, write only part Part (1 to Parts)
	// of the chunks of every level, straight into the folder out, and a
	// record of them; Finish, once every part has, checks that all their
	// chunks are there, computes the coarsest levels, which span parts,
	// and writes the metadata. Parts may run at once, in different
	// processes; a part run again keeps the chunks it finds equal to what
	// it computes. See planParts for how the chunks are shared out.
	Part, Parts int
	Finish      bool
	// Channels, when set, describe the channels in the "omero" metadata
	// (name, colour, display window), one per position of the C axis (or
	// one for data without one); nil means the source's own
	// (loader.Meta.Channels).
	Channels []loader.Channel
}

// Write writes every level of src (Meta().Levels, level 0 first) to the
// folder out as an OME-Zarr image. Each level's Zarr chunks are the level's
// Chunk; chunks that hold only zeros are not stored (Zarr reads them as the
// fill value 0). Axes are written in the order OME-NGFF requires (T, C,
// Z, Y, X), chunks transposed where the source stores another order.
//
// It refuses an existing out with ErrExists unless opts.Overwrite is set,
// and then only replaces a Zarr folder or an empty one. If ctx ends or an
// error occurs, nothing is left behind and out is unchanged. Errors do not
// repeat out or the source's path. A write whose process is killed leaves
// its temporary folder (out.partial-...) behind: Write first tidies up
// what killed writes of out left, as RemoveStale does, never touching
// what writes still running own. Write is safe to call concurrently for
// different outputs; src must allow concurrent ReadChunk calls.
func Write(ctx context.Context, out string, src loader.Source, opts Options) error {
	opts, err := opts.normalise(out)
	if err != nil {
		return err
	}
	m := src.Meta()
	if err := m.Validate(); err != nil {
		return fmt.Errorf("source: %v", err)
	}
	if opts.Channels == nil && !m.RGB {
		opts.Channels = m.Channels
	}
	lay, err := newLayout(m)
	if err != nil {
		return err
	}
	if IsObjectStore(out) {
		o, err := openObjects(out)
		if err != nil {
			return err
		}
		defer o.st.Close()
		switch {
		case opts.Parts > 0:
			return writePart(ctx, o, src, lay, opts)
		case opts.Finish:
			return finish(ctx, o, src, lay, opts)
		}
		return writeObjects(ctx, o, src, lay, opts)
	}
	out = filepath.Clean(out)
	switch {
	case opts.Parts > 0:
		return writePart(ctx, folderOutput{out}, src, lay, opts)
	case opts.Finish:
		return finish(ctx, folderOutput{out}, src, lay, opts)
	}
	RemoveStale(out)
	if err := checkTarget(out, opts.Overwrite); err != nil {
		return err
	}
	tmp, lock, err := mkdirTemp(out)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := fill(ctx, tmp, src, lay, opts); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := ctx.Err(); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := install(tmp, out, opts.Overwrite); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return nil
}

// fill writes the metadata and all chunks into dir.
func fill(ctx context.Context, dir string, src loader.Source, lay *layout, opts Options) error {
	files, err := metadataFiles(lay, opts)
	if err != nil {
		return err
	}
	out := folderOutput{dir}
	for name, data := range files {
		if err := out.put(ctx, name, data); err != nil {
			return err
		}
	}
	return writeChunks(ctx, out, src, lay, opts, false)
}

// writeObjects writes an image into an object store, where nothing can
// be renamed into place: the chunks first, then the metadata, the group's
// last, since it makes the image visible. Values an interrupted write
// left are compared and kept when equal, and removed where the chunk now
// holds only zeros. An existing image is refused (ErrExists), also with
// Options.Overwrite.
func writeObjects(ctx context.Context, o *objectOutput, src loader.Source, lay *layout, opts Options) error {
	if hasMetadata(ctx, o) {
		if opts.Overwrite {
			return fmt.Errorf("output already exists, and an image in an object store is not replaced: delete it first")
		}
		return ErrExists
	}
	empty, err := o.empty(ctx)
	if err != nil {
		return err
	}
	if err := writeChunks(ctx, o, src, lay, opts, !empty); err != nil {
		return err
	}
	files, err := metadataFiles(lay, opts)
	if err != nil {
		return err
	}
	return writeMetadata(ctx, o, files)
}

// normalise fills in defaults and checks opts.
func (o Options) normalise(out string) (Options, error) {
	if o.Version == 0 {
		o.Version = 2
	}
	if o.Version != 2 && o.Version != 3 {
		return o, fmt.Errorf("zarr version %d: want 2 or 3", o.Version)
	}
	if o.Codec == "" {
		o.Codec = "zstd"
	}
	if o.Level == 0 {
		o.Level = 1
	}
	switch o.Codec {
	case "zstd":
		if o.Level < 1 || o.Level > 22 {
			return o, fmt.Errorf("zstd level %d: want 1 to 22", o.Level)
		}
	case "gzip":
		if o.Level < 1 || o.Level > 9 {
			return o, fmt.Errorf("gzip level %d: want 1 to 9", o.Level)
		}
	case "none":
	default:
		return o, fmt.Errorf("codec %q: want zstd, gzip or none", o.Codec)
	}
	if o.Parts < 0 || o.Parts > 0 && (o.Part < 1 || o.Part > o.Parts) || o.Parts > 0 && o.Finish {
		return o, fmt.Errorf("part %d of %d: want 1 ≤ I ≤ N, and not with finish", o.Part, o.Parts)
	}
	if o.Shard != nil && (o.Version != 3 || len(o.Shard) != 3 || slices.Min(o.Shard) < 0) {
		return o, fmt.Errorf("shards need Zarr v3 and three sizes (Z, Y, X) of at least 0")
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Name == "" {
		o.Name = defaultName(out)
	}
	return o, nil
}

// defaultName is out's base name without a Zarr extension.
func defaultName(out string) string {
	b := filepath.Base(filepath.Clean(out))
	for _, ext := range []string{".ome.zarr", ".zarr"} {
		if len(b) > len(ext) && strings.EqualFold(b[len(b)-len(ext):], ext) {
			return b[:len(b)-len(ext)]
		}
	}
	return b
}
