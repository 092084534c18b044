package omezarr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"vastview/base/nd"
	"vastview/levels"
	"vastview/loader"
	"vastview/loader/zarr/codec"
)

// partRecord is what a finished part leaves in the output's parts folder:
// the plan it followed, its options, and per level the chunks it stored
// (the others held only zeros, which are not stored).
type partRecord struct {
	Part    int           `json:"part"`
	Parts   int           `json:"parts"`
	Zarr    int           `json:"zarr"`
	Codec   string        `json:"codec"`
	Type    string        `json:"type,omitempty"`
	Axis    int           `json:"axis"`
	Split   int           `json:"split"`
	Bounds  []int         `json:"bounds"`
	Levels  []levelRecord `json:"levels"`
	Written int           `json:"written"`
	Kept    int           `json:"kept"`
}

// levelRecord is the chunks of one level a part wrote: the box [Lo, End)
// of its grid (source axis order) and a bit per chunk, set when stored.
type levelRecord struct {
	Level  int    `json:"level"`
	Lo     []int  `json:"lo"`
	End    []int  `json:"end"`
	Stored []byte `json:"stored"`
}

func recordName(p, n int) string { return fmt.Sprintf("%d-of-%d.json", p+1, n) }

// writePart writes the chunks of part opts.Part of opts.Parts straight
// into out (a folder, created if needed, or an object store), then its
// record. Chunks an
// earlier run of the part left are compared with the new ones and kept
// when equal, so that a stopped part is rerun as a whole and only what is
// missing or damaged is written.
func writePart(ctx context.Context, out output, src loader.Source, lay *layout, opts Options) error {
	if hasMetadata(ctx, out) {
		return fmt.Errorf("output is a finished image already; not writing a part into it")
	}
	m := src.Meta()
	p := opts.Part - 1
	rec := partsDir + "/" + recordName(p, opts.Parts)
	if f, ok := out.(folderOutput); ok {
		if err := os.MkdirAll(filepath.Join(f.dir, partsDir), 0o755); err != nil {
			return fmt.Errorf("cannot create the output: %v", loader.StripPath(err))
		}
	}
	if err := out.remove(ctx, rec); err != nil {
		return err
	}
	comp, err := newCompressor(opts)
	if err != nil {
		return err
	}
	if comp != nil {
		defer comp.close()
	}
	w := newChunkWriter(ctx, out, src, lay, opts, comp)
	w.keep = true
	pl := planParts(m, src, opts.Parts, w.units())
	w.sets = make([]*chunkSet, len(lay.src))
	for k := range lay.src {
		if lo, end, ok := pl.box(lay, k, p); ok {
			w.sets[k] = newChunkSet(lo, end)
			clo, cend := w.chunkBox(k, lo, end)
			w.prog.total += nd.Product(sub(cend, clo))
			w.expect(k, nd.Product(sub(cend, clo)))
		}
	}
	from := len(lay.src)
	if sp, ok := src.(spanner); ok && pl.axis >= 0 && pl.split >= pl.stored {
		span := pl.span(p)
		run := func(ctx context.Context, workers int, fn levels.ChunkFunc) (int, error) {
			return sp.StreamSpan(ctx, workers, span, fn)
		}
		if from, err = w.stream(ctx, run, opts.Workers); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Workers)
	for k := 0; k < from && k <= pl.split; k++ {
		if w.sets[k] == nil {
			continue
		}
		w.eachChunk(k, w.sets[k].lo, w.sets[k].end, func(idx []int) bool {
			i := append([]int(nil), idx...)
			g.Go(func() error { return w.chunk(gctx, k, i) })
			return gctx.Err() == nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r := partRecord{Part: p + 1, Parts: opts.Parts, Zarr: opts.Version, Codec: opts.Codec, Type: opts.Type,
		Axis: pl.axis, Split: pl.split, Bounds: pl.bounds, Written: w.written(), Kept: w.kept()}
	for k, s := range w.sets {
		if s != nil {
			r.Levels = append(r.Levels, levelRecord{Level: k, Lo: s.lo, End: s.end, Stored: s.bits})
		}
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return out.putAtomic(ctx, rec, data)
}

// sub is a - b, element by element.
func sub(a, b []int) []int {
	d := make([]int, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
}

// writeAtomic writes data to a temporary file beside p and renames it
// onto p.
func writeAtomic(p string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-*")
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), p)
		}
		if err != nil {
			os.Remove(f.Name())
		}
	}
	if err != nil {
		return fmt.Errorf("cannot write the output: %v", loader.StripPath(err))
	}
	return nil
}

// hasMetadata reports whether out holds the top-level metadata of a Zarr
// image.
func hasMetadata(ctx context.Context, out output) bool {
	for _, n := range []string{".zgroup", "zarr.json"} {
		if _, err := out.get(ctx, n); err == nil {
			return true
		}
	}
	return false
}

// writeMetadata writes the metadata files into out, the group's last: its
// presence marks the image finished.
func writeMetadata(ctx context.Context, out output, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return strings.Count(names[i], "/") > strings.Count(names[j], "/") })
	for _, name := range names {
		if err := out.putAtomic(ctx, name, files[name]); err != nil {
			return err
		}
	}
	return nil
}

// A MissingError says which parts have not finished and which chunks the
// finished ones recorded are not in the output.
type MissingError struct {
	Parts  []string // "I/N" of each part without its record
	Chunks []string // keys of the chunks missing, each with its part
}

func (e *MissingError) Error() string {
	var s []string
	if len(e.Parts) > 0 {
		s = append(s, fmt.Sprintf("part %s not finished", chunkNames(e.Parts, 20)))
	}
	if len(e.Chunks) > 0 {
		s = append(s, fmt.Sprintf("%d chunks missing: %s", len(e.Chunks), chunkNames(e.Chunks, 5)))
	}
	return strings.Join(s, "; ") + " (run those parts again, then --finish)"
}

// finish checks that every part has finished and every chunk they stored
// is in out, computes the levels coarser than the last one cut among the
// parts from that level as written, writes the metadata and removes the
// parts' records.
func finish(ctx context.Context, out output, src loader.Source, lay *layout, opts Options) error {
	recs, err := readRecords(ctx, out)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		if hasMetadata(ctx, out) {
			return nil // finished before
		}
		return fmt.Errorf("no part has finished: run every --part I/N first")
	}
	n := recs[0].Parts
	uw := &chunkWriter{lay: lay, shards: shardsOf(lay, opts)}
	units := uw.units()
	pl := planParts(src.Meta(), src, n, units)
	miss := &MissingError{}
	have := map[int]partRecord{}
	for _, r := range recs {
		if r.Parts != n {
			return fmt.Errorf("parts of %d and of %d are mixed in the output", n, r.Parts)
		}
		if r.Zarr != opts.Version || r.Codec != opts.Codec || r.Type != opts.Type || r.Axis != pl.axis ||
			r.Split != pl.split || !slices.Equal(r.Bounds, pl.bounds) {
			return fmt.Errorf("part %s was written from another source or with other options (--zarr, --codec, --method)", partName(r.Part-1, n))
		}
		have[r.Part-1] = r
	}
	for p := 0; p < n; p++ {
		r, ok := have[p]
		if !ok {
			miss.Parts = append(miss.Parts, partName(p, n))
			continue
		}
		for _, lr := range r.Levels {
			s := &chunkSet{lo: lr.Lo, end: lr.End, bits: lr.Stored}
			if !fits(uw, lr) {
				return fmt.Errorf("the record of part %s is damaged: run it again", partName(p, n))
			}
			s.each(func(idx []int, in bool) bool {
				if in {
					key := chunkKey(opts.Version, lr.Level, permute(idx, lay.perm))
					if ok, err := out.has(ctx, key); !ok {
						if err != nil {
							miss.Chunks = append(miss.Chunks, key+" ("+err.Error()+")")
							return false
						}
						miss.Chunks = append(miss.Chunks, key+" (part "+partName(p, n)+")")
					}
				}
				return ctx.Err() == nil
			})
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(miss.Parts) > 0 || len(miss.Chunks) > 0 {
		return miss
	}
	if pl.split < len(lay.src)-1 {
		if err := finishLevels(ctx, out, src.Meta(), lay, pl.split, opts); err != nil {
			return err
		}
	}
	files, err := metadataFiles(lay, opts)
	if err != nil {
		return err
	}
	if err := writeMetadata(ctx, out, files); err != nil {
		return err
	}
	if err := out.removeDir(ctx, partsDir); err != nil {
		return fmt.Errorf("cannot remove the parts' records: %v", err)
	}
	return nil
}

// readRecords reads the records of the finished parts in out.
func readRecords(ctx context.Context, out output) ([]partRecord, error) {
	names, err := out.list(ctx, partsDir)
	if err != nil {
		return nil, fmt.Errorf("cannot read the parts' records: %v", err)
	}
	var recs []partRecord
	for _, name := range names {
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		data, err := out.get(ctx, partsDir+"/"+name)
		if err != nil {
			return nil, fmt.Errorf("cannot read the parts' records: %v", loader.StripPath(err))
		}
		var r partRecord
		if err := json.Unmarshal(data, &r); err != nil || r.Parts < 1 || r.Part < 1 || r.Part > r.Parts ||
			name != recordName(r.Part-1, r.Parts) {
			return nil, fmt.Errorf("the part record %s is damaged: run that part again", name)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// finishLevels writes the levels after split, computed from level split
// as the parts wrote it into out.
func finishLevels(ctx context.Context, out output, m *loader.Meta, lay *layout, split int, opts Options) error {
	ls, err := newLevelSource(out, m, lay, split, opts)
	if err != nil {
		return err
	}
	pyr, err := levels.Open(ls, levels.Options{Mode: opts.Type == "mode"})
	if err != nil {
		return fmt.Errorf("level %d: %v", split, err)
	}
	defer pyr.Close()
	lv := pyr.Levels()
	if len(lv) != len(lay.src)-split {
		return fmt.Errorf("the levels computed from level %d do not match the image's", split)
	}
	for j := 1; j < len(lv); j++ {
		want := lay.src[split+j]
		if !slices.Equal(lv[j].Shape, want.Shape) || !slices.Equal(lv[j].Chunk, want.Chunk) {
			return fmt.Errorf("level %d computed from level %d does not match the image's", split+j, split)
		}
	}
	comp, err := newCompressor(opts)
	if err != nil {
		return err
	}
	if comp != nil {
		defer comp.close()
	}
	w := newChunkWriter(ctx, out, nil, lay, opts, comp)
	w.keep = true
	for j := 1; j < len(lv); j++ {
		w.expect(split+j, nd.Product(lv[j].Grid()))
	}
	for j := 1; j < len(lv); j++ {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(opts.Workers)
		w.eachChunk(split+j, make([]int, len(lay.perm)), w.unitGrid(split+j), func(idx []int) bool {
			i := append([]int(nil), idx...)
			g.Go(func() error {
				b := <-w.bufs
				defer func() { w.bufs <- b }()
				b.raw = grow(b.raw, lv[j].ChunkBytes(m.DType))
				if err := pyr.ReadChunk(gctx, j, i, b.raw); err != nil {
					return err
				}
				return w.put(split+j, i, b.raw, b)
			})
			return gctx.Err() == nil
		})
		if err := g.Wait(); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// levelSource presents one level of an image the parts wrote into a
// folder or an object store as a loader.Source of one level, in the source's axis order.
type levelSource struct {
	out   output
	ver   int
	k     int
	meta  loader.Meta
	lay   *layout
	inv   *layout // from the written axis order back to the source's
	dec   codec.Codec
	chunk []int        // the written chunk shape
	w     *chunkWriter // for the level's shards, if any
}

func newLevelSource(out output, m *loader.Meta, lay *layout, k int, opts Options) (*levelSource, error) {
	l := lay.src[k]
	meta := *m
	meta.Levels = []loader.Level{l}
	meta.Shape = l.Shape
	ls := &levelSource{out: out, ver: opts.Version, k: k, meta: meta, lay: lay, chunk: lay.levels[k].Chunk,
		w: &chunkWriter{lay: lay, shards: shardsOf(lay, opts)}}
	ls.inv = &layout{dtype: lay.dtype, perm: make([]int, len(lay.perm)), same: lay.same}
	for j, s := range lay.perm {
		ls.inv.perm[s] = j
	}
	if opts.Codec != "none" {
		var err error
		if ls.dec, err = codec.FromV3(opts.Codec, nil); err != nil {
			return nil, err
		}
	}
	return ls, nil
}

func (s *levelSource) Meta() *loader.Meta { return &s.meta }
func (s *levelSource) Close() error       { return nil }

func (s *levelSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, &s.meta, level, idx, dst); err != nil {
		return err
	}
	key := chunkKey(s.ver, s.k, permute(idx, s.lay.perm))
	var data []byte
	var err error
	if s.w.shards != nil && s.w.shards[s.k] != nil {
		shard, slot := s.w.unitOf(s.k, idx)
		key = chunkKey(s.ver, s.k, permute(shard, s.lay.perm))
		data, err = s.out.inner(ctx, key, slot, nd.Product(s.w.per(s.k)))
		if err == nil && data == nil {
			err = fs.ErrNotExist
		}
	} else {
		data, err = s.out.get(ctx, key)
	}
	if errors.Is(err, fs.ErrNotExist) {
		clear(dst)
		return nil
	}
	if err != nil {
		return fmt.Errorf("chunk %s: %v", key, loader.StripPath(err))
	}
	if s.dec != nil {
		if data, err = s.dec.Decode(nil, data, len(dst)); err != nil {
			return fmt.Errorf("chunk %s: %v", key, err)
		}
	}
	if len(data) != len(dst) {
		return fmt.Errorf("chunk %s holds %d bytes, not %d", key, len(data), len(dst))
	}
	if s.lay.same {
		copy(dst, data)
	} else {
		s.inv.transpose(dst, data, s.chunk)
	}
	return nil
}

// written and kept count the chunks stored by the writer and those left
// as an earlier run wrote them.
func (w *chunkWriter) written() int { return int(w.nWritten.Load()) }
func (w *chunkWriter) kept() int    { return int(w.nKept.Load()) }

// shardsOf is the shard shape of every level that opts ask for, or nil.
func shardsOf(lay *layout, opts Options) [][]int {
	if opts.Version != 3 {
		return nil
	}
	return shardShapes(lay, opts.Shard)
}

// units is the shape of every level's objects: shards or chunks.
func (w *chunkWriter) units() [][]int {
	u := make([][]int, len(w.lay.src))
	for k := range u {
		u[k] = w.unitShape(k)
	}
	return u
}

// fits reports whether the level record lr names a box of objects inside
// its level's grid, with a bit for each.
func fits(w *chunkWriter, lr levelRecord) bool {
	if lr.Level < 0 || lr.Level >= len(w.lay.src) || len(lr.Lo) != len(w.lay.perm) || len(lr.End) != len(w.lay.perm) {
		return false
	}
	grid := w.unitGrid(lr.Level)
	for i := range grid {
		if lr.Lo[i] < 0 || lr.Lo[i] > lr.End[i] || lr.End[i] > grid[i] {
			return false
		}
	}
	return len(lr.Stored) == (nd.Product(sub(lr.End, lr.Lo))+7)/8
}
