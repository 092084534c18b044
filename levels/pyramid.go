package levels

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"

	"vastview/downsample"
	"vastview/loader"
)

// Options configure a Pyramid.
type Options struct {
	// CacheBytes bounds the chunk cache; 0 means DefaultCacheBytes().
	CacheBytes int64
	// Workers is the number of chunk loads run at once; 0 means one per core.
	Workers int
	// Mode downsamples by the most frequent value (label images) instead
	// of the mean; it is on by default for sources marked as labels.
	Mode bool
	// BuildBytes bounds what Build computes: the coarsest computed levels
	// that fit in it together (a long movie gets a thumbnail level rather
	// than 50 GB of levels). 0 means every level.
	BuildBytes int64
}

// Pyramid is a multi-resolution view of a Source: the levels the source
// stores, or level 0 and levels computed from it on demand. It implements
// loader.Source (whose Meta lists every level). It is safe for concurrent
// use.
type Pyramid struct {
	src       loader.Source
	meta      *loader.Meta
	reduce    [][]bool // reduce[k]: axes halved from level k to k+1
	stored    int      // levels read from the source
	built     int      // the first level Build computes (levels from it on)
	mode      bool
	cache     cache
	flight    singleflight.Group
	disk      *DiskEntry
	sched     *scheduler
	subs      subscribers
	prog      progress
	loads     atomic.Int64 // chunks read from the source
	compute   atomic.Int64 // chunks computed
	refreshes atomic.Uint64
	buildDone atomic.Bool // Build finished
	closed    atomic.Bool
	closeMu   sync.Mutex
}

// Open builds the pyramid's geometry over src and starts its workers; no
// chunk is read until asked for. The pyramid owns src and closes it.
func Open(src loader.Source, opt Options) (*Pyramid, error) {
	m := src.Meta()
	lv, reduce := planLevels(m)
	meta := *m
	meta.Levels = lv
	if err := meta.Validate(); err != nil {
		return nil, err
	}
	if opt.CacheBytes <= 0 {
		opt.CacheBytes = DefaultCacheBytes()
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	p := &Pyramid{
		src: src, meta: &meta, reduce: reduce, stored: len(m.Levels),
		mode:  opt.Mode || m.Label,
		cache: cache{c: newLRU(opt.CacheBytes)},
	}
	if p.mode && m.DType.Float() {
		return nil, fmt.Errorf("label images need integer samples, not %s", m.DType)
	}
	p.built = buildFrom(p.meta, p.stored, opt.BuildBytes)
	p.initProgress()
	p.sched = newScheduler(p, opt.Workers)
	return p, nil
}

// Meta describes the pyramid: the source's metadata with every level.
func (p *Pyramid) Meta() *loader.Meta { return p.meta }

// Levels returns the geometry of every level, level 0 first.
func (p *Pyramid) Levels() []loader.Level { return p.meta.Levels }

// Stored reports how many levels come from the source itself.
func (p *Pyramid) Stored() int { return p.stored }

// BuiltFrom returns the first level Build computes: Build computes the
// levels from it on, and the finer computed levels are computed only where
// they are viewed. It equals Stored unless Options.BuildBytes left some out.
func (p *Pyramid) BuiltFrom() int { return p.built }

// Thumbnails returns BuiltFrom once Build has finished (every chunk of
// those levels is then cheap to read), else the number of levels.
func (p *Pyramid) Thumbnails() int {
	if p.buildDone.Load() {
		return p.built
	}
	return len(p.meta.Levels)
}

// Get returns the chunk if it is in memory now, else nil. It never blocks
// on I/O. The returned bytes must not be modified.
//
// A chunk the source did not hold yet (see loader.ErrNotStored) is returned
// as its fill value for a short while, then reported absent so that the
// next view of it asks the source again.
func (p *Pyramid) Get(level int, idx []int) []byte {
	b, _ := p.cache.get(Key{level, IdxKey(idx)})
	return b
}

// Refresh forgets every chunk the source did not hold when it was read, so
// that the next view of it reads it again (a store still being written).
// It returns how many were forgotten.
func (p *Pyramid) Refresh() int {
	p.refreshes.Add(1)
	return p.cache.dropProvisional()
}

// Refreshes counts the calls of Refresh, so that holders of chunk bytes
// (a renderer's memo) know to let go of placeholders.
func (p *Pyramid) Refreshes() uint64 { return p.refreshes.Load() }

// NotStored reports how many chunks in memory are placeholders for data
// the source did not hold when they were read.
func (p *Pyramid) NotStored() int { return p.cache.provisional() }

// ReadChunk copies a chunk into dst, loading or computing it first if
// needed; it blocks until then or until ctx ends.
func (p *Pyramid) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := p.checkIdx(level, idx); err != nil {
		return err
	}
	l := &p.meta.Levels[level]
	if len(dst) < l.ChunkBytes(p.meta.DType) {
		return fmt.Errorf("buffer of %d bytes for a chunk of %d", len(dst), l.ChunkBytes(p.meta.DType))
	}
	if level < p.stored {
		// Stored chunks that are not cached are read straight into dst:
		// a reader of every chunk (an export) should not churn the cache.
		if b, prov := p.cache.get(Key{level, IdxKey(idx)}); b != nil && !prov {
			copy(dst, b)
			return nil
		}
		p.loads.Add(1)
		return p.src.ReadChunk(ctx, level, idx, dst)
	}
	c, err := p.load(ctx, level, idx)
	if err != nil {
		return err
	}
	copy(dst, c.data)
	if c.provisional {
		return fmt.Errorf("level %d chunk %v: %w", level, idx, loader.ErrNotStored)
	}
	return nil
}

// CacheUsed reports the bytes the chunk cache holds now.
func (p *Pyramid) CacheUsed() int64 { return p.cache.usedBytes() }

// Counts reports how many chunks were read from the source and computed
// since Open.
func (p *Pyramid) Counts() (read, computed int64) { return p.loads.Load(), p.compute.Load() }

// Close stops the workers and closes the source.
func (p *Pyramid) Close() error {
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	if p.closed.Swap(true) {
		return nil
	}
	p.sched.stop()
	p.subs.closeAll()
	return p.src.Close()
}

func (p *Pyramid) checkIdx(level int, idx []int) error {
	if level < 0 || level >= len(p.meta.Levels) {
		return fmt.Errorf("no level %d", level)
	}
	g := p.meta.Levels[level].Grid()
	if len(idx) != len(g) {
		return fmt.Errorf("chunk index %v has %d axes, want %d", idx, len(idx), len(g))
	}
	for i, v := range idx {
		if v < 0 || v >= g[i] {
			return fmt.Errorf("chunk index %v outside the grid %v", idx, g)
		}
	}
	return nil
}

// errClosed is returned by loads on a closed pyramid.
var errClosed = errors.New("pyramid is closed")

// loaded is a chunk in memory: its bytes, and whether they are a
// placeholder for data the source did not hold yet.
type loaded struct {
	data        []byte
	provisional bool
}

// load returns the chunk's bytes from the cache, the disk cache, the source
// or by computing it; concurrent loads of one chunk run once.
func (p *Pyramid) load(ctx context.Context, level int, idx []int) (loaded, error) {
	k := Key{level, IdxKey(idx)}
	for {
		if b, prov := p.cache.get(k); b != nil {
			return loaded{b, prov}, nil
		}
		if p.closed.Load() {
			return loaded{}, errClosed
		}
		// The load runs under the context of the caller that started it,
		// so that a request the view no longer needs can be cancelled;
		// another caller whose own context is alive then starts it again.
		ch := p.flight.DoChan(fmt.Sprint(k), func() (any, error) {
			if b, prov := p.cache.get(k); b != nil {
				return loaded{b, prov}, nil
			}
			c, class, err := p.fetch(ctx, level, idx)
			if err != nil {
				return nil, err
			}
			p.cache.put(k, c.data, class, c.provisional)
			p.subs.notify(Arrival{Level: level, Idx: append([]int(nil), idx...)})
			return c, nil
		})
		select {
		case r := <-ch:
			if r.Err == nil {
				return r.Val.(loaded), nil
			}
			if ctx.Err() == nil && (errors.Is(r.Err, context.Canceled) || errors.Is(r.Err, context.DeadlineExceeded)) {
				continue // cancelled for its first caller, not for this one
			}
			return loaded{}, r.Err
		case <-ctx.Done():
			return loaded{}, ctx.Err()
		}
	}
}

// fetch produces a chunk that is not in memory. A chunk the source does not
// hold yet, or one computed from such chunks, is provisional: kept in
// memory for a while but never in the disk cache. Chunks of levels finer
// than BuiltFrom stay in memory too: the disk cache has no room for them.
func (p *Pyramid) fetch(ctx context.Context, level int, idx []int) (loaded, int, error) {
	l := &p.meta.Levels[level]
	buf := make([]byte, l.ChunkBytes(p.meta.DType))
	if level < p.stored {
		p.loads.Add(1)
		err := p.src.ReadChunk(ctx, level, idx, buf)
		if loader.IsNotStored(err) {
			return loaded{buf, true}, classSource, nil
		}
		return loaded{buf, false}, classSource, err
	}
	if p.disk != nil && p.disk.get(level, idx, buf) {
		return loaded{buf, false}, classComputed, nil
	}
	prov, err := p.computeChunk(ctx, level, idx, buf)
	if err != nil {
		return loaded{}, 0, err
	}
	p.compute.Add(1)
	if p.disk != nil && !prov && level >= p.built {
		if err := p.disk.put(level, idx, buf); err != nil {
			return loaded{}, 0, err
		}
	}
	return loaded{buf, prov}, classComputed, nil
}

// computeChunk fills dst with chunk idx of a computed level: the region of
// the level below that it covers, gathered from that level's chunks and
// halved along the level's reduced axes. It reports whether any of those
// chunks was provisional.
func (p *Pyramid) computeChunk(ctx context.Context, level int, idx []int, dst []byte) (bool, error) {
	below := &p.meta.Levels[level-1]
	l := &p.meta.Levels[level]
	red := p.reduce[level-1]
	n := len(idx)
	start, shape := make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		f := 1
		if red[i] {
			f = 2
		}
		start[i] = idx[i] * l.Chunk[i] * f
		shape[i] = min(l.Chunk[i]*f, below.Shape[i]-start[i])
	}
	es := p.meta.DType.Size()
	rb := getBuf(product(shape) * es)
	defer putBuf(rb)
	region := *rb
	prov, err := p.gather(ctx, level-1, start, shape, region)
	if err != nil {
		return false, err
	}
	out := downsample.OutShape(shape, red)
	small := dst
	padded := !slices.Equal(out, l.Chunk)
	if padded {
		sb := getBuf(product(out) * es)
		defer putBuf(sb)
		small = *sb
	}
	if p.mode {
		err = downsample.Mode(p.meta.DType, small, region, shape, red)
	} else {
		err = downsample.Mean(p.meta.DType, small, region, shape, red)
	}
	if err != nil {
		return false, err
	}
	if padded {
		clear(dst)
		copyBox(dst, l.Chunk, make([]int, n), small, out, make([]int, n), out, es)
	}
	return prov, nil
}

// gather copies the box [start, start+shape) of a level into dst (C order)
// and reports whether any chunk it used was provisional.
func (p *Pyramid) gather(ctx context.Context, level int, start, shape []int, dst []byte) (bool, error) {
	l := &p.meta.Levels[level]
	es := p.meta.DType.Size()
	n := len(start)
	lo, hi := make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		lo[i] = start[i] / l.Chunk[i]
		hi[i] = (start[i] + shape[i] - 1) / l.Chunk[i]
	}
	idx := append([]int(nil), lo...)
	prov := false
	for {
		c, err := p.load(ctx, level, idx)
		if err != nil {
			return false, err
		}
		prov = prov || c.provisional
		// The overlap of this chunk with the box.
		srcOff, dstOff, box := make([]int, n), make([]int, n), make([]int, n)
		for i := 0; i < n; i++ {
			c0 := idx[i] * l.Chunk[i]
			a := max(c0, start[i])
			z := min(c0+l.Chunk[i], start[i]+shape[i])
			srcOff[i], dstOff[i], box[i] = a-c0, a-start[i], z-a
		}
		copyBox(dst, shape, dstOff, c.data, l.Chunk, srcOff, box, es)
		if !nextIdx(idx, lo, hi) {
			return prov, nil
		}
	}
}

// nextIdx steps idx through the box [lo, hi] in C order; false at the end.
func nextIdx(idx, lo, hi []int) bool {
	for i := len(idx) - 1; i >= 0; i-- {
		idx[i]++
		if idx[i] <= hi[i] {
			return true
		}
		idx[i] = lo[i]
	}
	return false
}

// copyBox copies a box of samples between two C-order arrays.
func copyBox(dst []byte, dstShape, dstOff []int, src []byte, srcShape, srcOff, box []int, es int) {
	n := len(box)
	for _, b := range box {
		if b <= 0 {
			return
		}
	}
	dstStr, srcStr := strides(dstShape), strides(srcShape)
	pos := make([]int, n)
	row := box[n-1] * es
	for {
		d, s := 0, 0
		for i := 0; i < n; i++ {
			d += (dstOff[i] + pos[i]) * dstStr[i]
			s += (srcOff[i] + pos[i]) * srcStr[i]
		}
		copy(dst[d*es:d*es+row], src[s*es:s*es+row])
		i := n - 2
		for ; i >= 0; i-- {
			pos[i]++
			if pos[i] < box[i] {
				break
			}
			pos[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

func strides(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

func product(v []int) int {
	p := 1
	for _, x := range v {
		p *= x
	}
	return p
}

// bufPool recycles the scratch buffers of computed chunks: on some machines
// filling fresh memory costs more than the downsampling itself.
var bufPool sync.Pool

func getBuf(n int) *[]byte {
	if b, ok := bufPool.Get().(*[]byte); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n)
	return &b
}

func putBuf(b *[]byte) { bufPool.Put(b) }
