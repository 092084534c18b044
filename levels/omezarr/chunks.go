package omezarr

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"vastview/levels"
	"vastview/loader"
)

// chunkWriter reads, encodes and stores the chunks of one image. Its
// methods are safe for concurrent use.
type chunkWriter struct {
	ctx  context.Context // of the write, for the output's requests
	out  output
	src  loader.Source
	lay  *layout
	ver  int
	comp compressor    // nil: chunks stored raw
	bufs chan *buffers // one set per worker
	prog progress
	// keep makes store compare each chunk with what the output holds
	// under its name already, and leave it when it is the same (a rerun
	// of a part that was stopped); a chunk of zeros then removes one.
	keep bool
	// sets, when set, record per level the chunks stored (not zero).
	setMu sync.Mutex
	sets  []*chunkSet
	// levels count the chunks of each level left to do; levelDone is
	// Options.LevelDone.
	levels    []levelCount
	levelDone func(level, chunks int, bytes int64)
	// shards are the shard shapes per level (source order), nil when
	// the chunks are stored one per object; sh gathers them.
	shards [][]int
	sh     shardSet
	// nWritten and nKept count the chunks stored and those kept as an
	// earlier run wrote them.
	nWritten, nKept atomic.Int64
}

// buffers are one worker's chunk buffers, grown as needed.
type buffers struct{ raw, perm, enc []byte }

// progress counts finished chunks and reports them one call at a time.
type progress struct {
	mu          sync.Mutex
	done, total int
	fn          func(done, total int)
}

func (p *progress) add() {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.fn(p.done, p.total)
}

// levelCount counts the chunks of one level still to do, and calls
// Options.LevelDone when none are left.
type levelCount struct {
	left  atomic.Int64
	total int
	bytes int64
}

// expect sets the number of chunks of level k the writer is to do.
func (w *chunkWriter) expect(k, chunks int) {
	if w.levels == nil {
		w.levels = make([]levelCount, len(w.lay.src))
	}
	c := &w.levels[k]
	c.total += chunks
	c.left.Add(int64(chunks))
	c.bytes += int64(chunks) * int64(w.lay.src[k].ChunkBytes(w.lay.dtype))
}

// doneChunk counts a chunk of level k done.
func (w *chunkWriter) doneChunk(k int) {
	w.prog.add()
	if w.levels == nil || w.levelDone == nil {
		return
	}
	c := &w.levels[k]
	if c.left.Add(-1) == 0 {
		w.levelDone(k, c.total, c.bytes)
	}
}

// writeChunks stores every chunk of every level in out, at most
// opts.Workers at a time; keep is chunkWriter.keep.
func writeChunks(ctx context.Context, out output, src loader.Source, lay *layout, opts Options, keep bool) error {
	comp, err := newCompressor(opts)
	if err != nil {
		return err
	}
	if comp != nil {
		defer comp.close()
	}
	w := newChunkWriter(ctx, out, src, lay, opts, comp)
	w.keep = keep
	for k, l := range lay.src {
		w.prog.total += count(l.Grid())
		w.expect(k, count(l.Grid()))
	}
	from := len(lay.src)
	if st, ok := src.(streamer); ok {
		if from, err = w.stream(ctx, st.StreamChunks, opts.Workers); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Workers)
	for k := range lay.src[:from] {
		w.eachChunk(k, make([]int, len(lay.perm)), w.unitGrid(k), func(idx []int) bool {
			i := append([]int(nil), idx...)
			g.Go(func() error { return w.chunk(gctx, k, i) })
			return gctx.Err() == nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// newChunkWriter returns a writer of chunks into out with opts.Workers
// sets of buffers, its requests made with ctx.
func newChunkWriter(ctx context.Context, out output, src loader.Source, lay *layout, opts Options, comp compressor) *chunkWriter {
	w := &chunkWriter{ctx: ctx, out: out, src: src, lay: lay, ver: opts.Version, comp: comp,
		bufs: make(chan *buffers, opts.Workers)}
	for range opts.Workers {
		w.bufs <- &buffers{}
	}
	w.prog.fn = opts.Progress
	w.levelDone = opts.LevelDone
	w.shards = shardsOf(lay, opts)
	return w
}

// A SourceError is a failure to read the image being written, not to
// write the output: a caller names the source in its message.
type SourceError struct{ Err error }

func (e *SourceError) Error() string { return e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// A streamer hands on the chunks of its levels from some level on, each
// once, as levels.Pyramid.StreamChunks does; it returns that level.
type streamer interface {
	StreamChunks(ctx context.Context, workers int, fn func(level int, idx []int, data []byte, release func()) error) (int, error)
}

// stream stores the chunks run streams (StreamChunks, say), with workers
// goroutines encoding and writing them as they come, and returns the
// first level streamed.
func (w *chunkWriter) stream(ctx context.Context, run func(context.Context, int, levels.ChunkFunc) (int, error), workers int) (int, error) {
	type job struct {
		k       int
		idx     []int
		data    []byte
		release func()
	}
	jobs := make(chan job)
	g, gctx := errgroup.WithContext(ctx)
	for range workers {
		g.Go(func() error {
			b := <-w.bufs
			defer func() { w.bufs <- b }()
			for j := range jobs {
				err := w.put(j.k, j.idx, j.data, b)
				j.release()
				if err != nil {
					for j := range jobs {
						j.release()
					}
					return err
				}
			}
			return nil
		})
	}
	var from int
	g.Go(func() error {
		defer close(jobs)
		var err error
		from, err = run(gctx, workers, func(k int, idx []int, data []byte, release func()) error {
			select {
			case jobs <- job{k, idx, data, release}:
				return nil
			case <-gctx.Done():
				release()
				return gctx.Err()
			}
		})
		if err != nil && ctx.Err() == nil && gctx.Err() == nil {
			err = &SourceError{err}
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return 0, err
	}
	return from, ctx.Err()
}

// chunk stores the chunk of level k at source grid index idx.
func (w *chunkWriter) chunk(ctx context.Context, k int, idx []int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b := <-w.bufs
	defer func() { w.bufs <- b }()
	b.raw = grow(b.raw, w.lay.src[k].ChunkBytes(w.lay.dtype))
	if err := w.src.ReadChunk(ctx, k, idx, b.raw); err != nil && !loader.IsNotStored(err) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &SourceError{fmt.Errorf("reading level %d chunk %v: %w", k, idx, err)}
	}
	return w.put(k, idx, b.raw, b)
}

// put encodes and stores data, the chunk of level k at source grid index
// idx, with the worker's buffers b, unless it holds only zeros, and counts
// it done.
func (w *chunkWriter) put(k int, idx []int, data []byte, b *buffers) error {
	isZero := zero(data)
	var enc []byte
	if !isZero {
		if !w.lay.same {
			l := &w.lay.src[k]
			b.perm = grow(b.perm, len(data))
			w.lay.transpose(b.perm, data, l.Chunk)
			data = b.perm
		}
		enc = data
		if w.comp != nil {
			var err error
			if enc, err = w.comp.compress(data, b.enc); err != nil {
				return fmt.Errorf("compressing level %d chunk %v: %v", k, idx, err)
			}
			b.enc = enc
		}
	}
	var err error
	switch key := chunkKey(w.ver, k, permute(idx, w.lay.perm)); {
	case w.shards != nil && w.shards[k] != nil:
		if enc != nil {
			enc = append([]byte(nil), enc...) // kept until the shard is complete
		}
		err = w.addInner(k, idx, enc)
	case isZero:
		err = w.removeStale(key)
	default:
		w.mark(k, idx)
		err = w.writeFile(key, enc)
	}
	if err != nil {
		return err
	}
	w.doneChunk(k)
	return nil
}

// mark records unit idx of level k (a chunk, or a shard) as stored.
func (w *chunkWriter) mark(k int, idx []int) {
	if w.sets != nil && w.sets[k] != nil {
		w.setMu.Lock()
		w.sets[k].set(idx)
		w.setMu.Unlock()
	}
}

// removeStale removes the object key that a run before may have left,
// when the writer keeps what it finds: the data there is zeros now.
func (w *chunkWriter) removeStale(key string) error {
	if !w.keep {
		return nil
	}
	return w.out.remove(w.ctx, key)
}

// writeFile writes the object key, unless the writer keeps what it finds
// and finds data there already.
func (w *chunkWriter) writeFile(key string, data []byte) error {
	if w.keep {
		if old, err := w.out.get(w.ctx, key); err == nil && bytes.Equal(old, data) {
			w.nKept.Add(1)
			return nil
		}
	}
	w.nWritten.Add(1)
	return w.out.put(w.ctx, key, data)
}

// chunkKey is the slash-separated path of level k's chunk idx: "k/i/j/l"
// in Zarr v2 with the "/" dimension separator, "k/c/i/j/l" in Zarr v3 with
// the default chunk key encoding.
func chunkKey(ver, k int, idx []int) string {
	var sb strings.Builder
	sb.WriteString(strconv.Itoa(k))
	if ver == 3 {
		sb.WriteString("/c")
	}
	for _, i := range idx {
		sb.WriteByte('/')
		sb.WriteString(strconv.Itoa(i))
	}
	return sb.String()
}

// count is the number of cells of a grid.
func count(grid []int) int {
	n := 1
	for _, g := range grid {
		n *= g
	}
	return n
}

// grow returns b resized to n bytes, reallocating only when too small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

var zeros [32 << 10]byte

// zero reports whether b holds only zero bytes.
func zero(b []byte) bool {
	for len(b) > 0 {
		n := min(len(b), len(zeros))
		if !bytes.Equal(b[:n], zeros[:n]) {
			return false
		}
		b = b[n:]
	}
	return true
}
