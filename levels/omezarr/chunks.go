package omezarr

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"vastview/base/nd"
	"vastview/loader"
)

// chunkWriter reads, encodes and stores the chunks of one image. Its
// methods are safe for concurrent use.
type chunkWriter struct {
	dir  string
	src  loader.Source
	lay  *layout
	ver  int
	comp compressor    // nil: chunks stored raw
	bufs chan *buffers // one set per worker
	prog progress
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

// writeChunks stores every chunk of every level under dir, at most
// opts.Workers at a time.
func writeChunks(ctx context.Context, dir string, src loader.Source, lay *layout, opts Options) error {
	comp, err := newCompressor(opts)
	if err != nil {
		return err
	}
	if comp != nil {
		defer comp.close()
	}
	w := &chunkWriter{dir: dir, src: src, lay: lay, ver: opts.Version, comp: comp,
		bufs: make(chan *buffers, opts.Workers)}
	for range opts.Workers {
		w.bufs <- &buffers{}
	}
	w.prog.fn = opts.Progress
	for _, l := range lay.src {
		w.prog.total += count(l.Grid())
	}
	from := len(lay.src)
	if st, ok := src.(streamer); ok {
		if from, err = w.stream(ctx, st, opts.Workers); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Workers)
	for k, l := range lay.src[:from] {
		grid := l.Grid()
		idx := make([]int, len(grid))
		for more := true; more && gctx.Err() == nil; more = nd.Next(idx, grid) {
			i := append([]int(nil), idx...)
			g.Go(func() error { return w.chunk(gctx, k, i) })
		}
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
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

// stream stores the chunks src streams, with workers goroutines encoding
// and writing them as they come, and returns the first level streamed.
func (w *chunkWriter) stream(ctx context.Context, src streamer, workers int) (int, error) {
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
		from, err = src.StreamChunks(gctx, workers, func(k int, idx []int, data []byte, release func()) error {
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
	if !zero(data) {
		if !w.lay.same {
			l := &w.lay.src[k]
			b.perm = grow(b.perm, len(data))
			w.lay.transpose(b.perm, data, l.Chunk)
			data = b.perm
		}
		if err := w.store(k, permute(idx, w.lay.perm), data, b); err != nil {
			return err
		}
	}
	w.prog.add()
	return nil
}

// store encodes data and writes it as the chunk at written index idx.
func (w *chunkWriter) store(k int, idx []int, data []byte, b *buffers) error {
	if w.comp != nil {
		enc, err := w.comp.compress(data, b.enc)
		if err != nil {
			return fmt.Errorf("compressing level %d chunk %v: %v", k, idx, err)
		}
		b.enc, data = enc, enc
	}
	p := filepath.Join(w.dir, filepath.FromSlash(chunkKey(w.ver, k, idx)))
	err := os.MkdirAll(filepath.Dir(p), 0o755)
	if err == nil {
		err = os.WriteFile(p, data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("cannot write the output: %v", loader.StripPath(err))
	}
	return nil
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
