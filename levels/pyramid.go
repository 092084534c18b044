package levels

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"vastview/base/nd"
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
	// Disk, when set, keeps the computed levels in that disk cache, under
	// Identity (the source's): a pyramid opened again on the same source
	// reads them back instead of computing them. When the cache cannot be
	// used, the pyramid works without it (see DiskError).
	Disk     *Disk
	Identity loader.Identity
	// PlaceholderTTL is how long a chunk the source did not hold yet
	// (loader.ErrNotStored) is shown as its fill value before it is read
	// again; 0 means DefaultPlaceholderTTL.
	PlaceholderTTL time.Duration
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
	disk      atomic.Pointer[diskEntry] // nil without a disk cache, or after it failed
	diskHeld  *diskEntry                // the entry opened, released by Close
	diskMu    sync.Mutex
	diskErr   error
	sched     *scheduler
	subs      subscribers
	prog      progress
	loads     atomic.Int64 // chunks read from the source
	viewBytes atomic.Int64 // bytes of them read for views
	bgBytes   atomic.Int64 // and for background work
	compute   atomic.Int64 // chunks computed
	refreshes atomic.Uint64
	buildDone atomic.Bool // Build finished
	held      hold        // pauses Build (Hold)
	failMu    sync.Mutex
	failures  map[Key]failure // chunks whose last load failed
	closed    atomic.Bool
	closeMu   sync.Mutex
	// Loads in flight: Close cancels them (life) and waits (flights);
	// flightMu orders their start against Close.
	life     context.Context
	end      context.CancelFunc
	flightMu sync.RWMutex
	flights  sync.WaitGroup
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
	if opt.PlaceholderTTL <= 0 {
		opt.PlaceholderTTL = DefaultPlaceholderTTL
	}
	p := &Pyramid{
		src: src, meta: &meta, reduce: reduce, stored: len(m.Levels),
		mode:  opt.Mode || m.Label,
		cache: cache{c: newChunks(opt.CacheBytes, opt.PlaceholderTTL)},
	}
	if p.mode && m.DType.Float() {
		return nil, fmt.Errorf("label images need integer samples, not %s", m.DType)
	}
	p.life, p.end = context.WithCancel(context.Background())
	p.built = buildFrom(p.meta, p.stored, opt.BuildBytes)
	if opt.Disk != nil && p.stored < len(p.meta.Levels) {
		e, err := opt.Disk.entry(opt.Identity, p)
		if err != nil {
			p.diskErr = fmt.Errorf("disk cache not used: %w", err)
		} else {
			p.disk.Store(e)
			p.diskHeld = e
		}
	}
	p.initProgress()
	p.sched = newScheduler(p, opt.Workers)
	return p, nil
}

// Meta describes the pyramid: the source's metadata with every level.
func (p *Pyramid) Meta() *loader.Meta { return p.meta }

// Levels returns the geometry of every level, level 0 first.
func (p *Pyramid) Levels() []loader.Level { return p.meta.Levels }

// DiskError says why the disk cache given in the options is not used, or
// is nil.
// It is set when the cache could not be opened, or when writing to it
// failed (a full disk, say): the pyramid then goes on without it.
func (p *Pyramid) DiskError() error {
	p.diskMu.Lock()
	defer p.diskMu.Unlock()
	return p.diskErr
}

// putDisk writes a computed chunk to the disk cache and reports whether it
// did. The first failure is kept for DiskError and ends the use of the
// disk cache: it saves work, it is never a reason for a read to fail.
func (p *Pyramid) putDisk(level int, idx []int, data []byte) bool {
	d := p.disk.Load()
	if d == nil {
		return false
	}
	if err := d.put(level, idx, data); err != nil {
		p.diskMu.Lock()
		if p.diskErr == nil {
			p.diskErr = fmt.Errorf("disk cache not used: %w", err)
		}
		p.diskMu.Unlock()
		p.disk.Store(nil)
		return false
	}
	return true
}

// Stored reports how many levels come from the source itself.
func (p *Pyramid) Stored() int { return p.stored }

// Thumbnails returns, once Build has finished, the first level Build
// computes (every chunk of the levels from it on is then cheap to read;
// finer computed levels are computed only where they are viewed; it is
// Stored unless Options.BuildBytes left some out), else the number of
// levels.
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
	b, _ := p.cache.get(Key{Level: level, Idx: IdxKey(idx)})
	return b
}

// Refresh forgets every chunk the source did not hold when it was read, so
// that the next view of it reads it again (a store still being written).
// It returns how many were forgotten.
func (p *Pyramid) Refresh() int {
	p.refreshes.Add(1)
	p.failMu.Lock()
	clear(p.failures)
	p.failMu.Unlock()
	return p.cache.dropProvisional()
}

// failure is a chunk load that failed, and when.
type failure struct {
	err error
	at  time.Time
}

// failureTTL is how long a chunk whose load failed is reported as such
// (and not loaded for a view) before it is tried again.
const failureTTL = 10 * time.Second

// Failed returns why the last load of the chunk failed, if it failed in
// the last ten seconds and Refresh was not called since; else nil.
func (p *Pyramid) Failed(level int, idx []int) error {
	p.failMu.Lock()
	defer p.failMu.Unlock()
	if len(p.failures) == 0 {
		return nil
	}
	k := Key{Level: level, Idx: IdxKey(idx)}
	f, ok := p.failures[k]
	if !ok {
		return nil
	}
	if time.Since(f.at) > failureTTL {
		delete(p.failures, k)
		return nil
	}
	return f.err
}

func (p *Pyramid) hasFailures() bool {
	p.failMu.Lock()
	defer p.failMu.Unlock()
	return len(p.failures) > 0
}

// noteLoad records how a load of chunk k ended: failures other than a
// cancellation are kept for Failed, successes forget them.
func (p *Pyramid) noteLoad(k Key, err error) {
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errClosed)) {
		return
	}
	p.failMu.Lock()
	defer p.failMu.Unlock()
	if err == nil {
		delete(p.failures, k)
		return
	}
	if p.failures == nil {
		p.failures = map[Key]failure{}
	}
	if len(p.failures) >= maxFailures {
		clear(p.failures)
	}
	p.failures[k] = failure{err: err, at: time.Now()}
}

// maxFailures bounds the failures remembered.
const maxFailures = 4096

// Refreshes counts the calls of Refresh, so that holders of chunk bytes
// (a renderer's memo) know to let go of placeholders.
func (p *Pyramid) Refreshes() uint64 { return p.refreshes.Load() }

// MissingChunks reports how many chunks reads of the source found missing
// where it had reason to expect data (loader.MissingCounter,
// loader.ErrMissing). It is safe for concurrent use.
func (p *Pyramid) MissingChunks() int { return loader.Missing(p.src) }

// NotStored reports how many chunks in memory are placeholders for data
// the source did not hold when they were read.
func (p *Pyramid) NotStored() int { return p.cache.provisional() }

// ReadChunk copies a chunk into dst, loading or computing it first if
// needed; it blocks until then or until ctx ends.
func (p *Pyramid) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, p.meta, level, idx, dst); err != nil {
		return err
	}
	if level < p.stored {
		// Stored chunks that are not cached are read straight into dst:
		// a reader of every chunk (an export) should not churn the cache.
		if b, prov := p.cache.get(Key{Level: level, Idx: IdxKey(idx)}); b != nil && !prov {
			copy(dst, b)
			return nil
		}
		ctx, done, ok := p.startFlight(ctx)
		if !ok {
			return errClosed
		}
		defer done()
		p.countRead(ctx, level)
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

// SetCacheBytes changes the chunk cache's budget (0: DefaultCacheBytes),
// evicting chunks down to a smaller one. It is safe for concurrent use.
func (p *Pyramid) SetCacheBytes(n int64) {
	if n <= 0 {
		n = DefaultCacheBytes()
	}
	p.cache.setBudget(n)
}

// CacheUsed reports the bytes the chunk cache holds now.
func (p *Pyramid) CacheUsed() int64 { return p.cache.usedBytes() }

// Counts reports how many chunks were read from the source and computed
// since Open.
func (p *Pyramid) Counts() (read, computed int64) { return p.loads.Load(), p.compute.Load() }

// BytesRead reports the bytes of source chunks read since Open: for views
// (and anything not marked as background work), and for background work
// (Build, Background requests, and reads under a ForBackground context).
func (p *Pyramid) BytesRead() (view, background int64) {
	return p.viewBytes.Load(), p.bgBytes.Load()
}

// backgroundKey marks a context of background work.
type backgroundKey struct{}

// ForBackground marks ctx as background work (an export, say), whose
// reads BytesRead counts apart from the views'.
func ForBackground(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

func isBackground(ctx context.Context) bool { return ctx.Value(backgroundKey{}) != nil }

// buildingKey marks a context of Build, whose computed chunks go to the
// disk cache and are read back from there when wanted.
type buildingKey struct{}

func forBuild(ctx context.Context) context.Context {
	return context.WithValue(ctx, buildingKey{}, true)
}

func isBuild(ctx context.Context) bool { return ctx.Value(buildingKey{}) != nil }

// countRead counts one chunk of a stored level read from the source.
func (p *Pyramid) countRead(ctx context.Context, level int) {
	p.loads.Add(1)
	n := int64(p.meta.Levels[level].ChunkBytes(p.meta.DType))
	if isBackground(ctx) {
		p.bgBytes.Add(n)
	} else {
		p.viewBytes.Add(n)
	}
}

// Close stops the workers, lets go of the disk cache's entry (which other
// processes may then evict) and closes the source.
func (p *Pyramid) Close() error {
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	p.flightMu.Lock()
	already := p.closed.Swap(true)
	p.flightMu.Unlock()
	if already {
		return nil
	}
	p.end()
	p.flights.Wait()
	p.sched.stop()
	p.subs.closeAll()
	if p.diskHeld != nil {
		p.diskHeld.close()
	}
	return p.src.Close()
}

// errClosed is returned by loads on a closed pyramid.
var errClosed = errors.New("pyramid is closed")

// loaded is a chunk in memory: its bytes, and whether they are a
// placeholder for data the source did not hold yet.
type loaded struct {
	data        []byte
	provisional bool
	onDisk      bool // computed and just stored in the disk cache
}

// load returns the chunk's bytes from the cache, the disk cache, the source
// or by computing it; concurrent loads of one chunk run once.
func (p *Pyramid) load(ctx context.Context, level int, idx []int) (loaded, error) {
	k := Key{Level: level, Idx: IdxKey(idx)}
	for {
		if b, prov := p.cache.get(k); b != nil {
			return loaded{data: b, provisional: prov}, nil
		}
		if p.closed.Load() {
			return loaded{}, errClosed
		}
		// The load runs under the context of the caller that started it,
		// so that a request the view no longer needs can be cancelled;
		// another caller whose own context is alive then starts it again.
		ch := p.flight.DoChan(fmt.Sprint(k), func() (any, error) {
			if b, prov := p.cache.get(k); b != nil {
				return loaded{data: b, provisional: prov}, nil
			}
			ctx, done, ok := p.startFlight(ctx)
			if !ok {
				return nil, errClosed
			}
			defer done()
			c, class, err := p.fetch(ctx, level, idx)
			if err != nil {
				if ctx.Err() == nil {
					p.noteLoad(k, err)
				}
				return nil, err
			}
			if p.hasFailures() {
				p.noteLoad(k, nil)
			}
			// A chunk Build computed into the disk cache is read back
			// from there when wanted: in memory it would push out the
			// chunks of the level below that the next ones need (a band
			// of a strip decoded again from the strip's start). Other
			// work (views, read-ahead) keeps what it computed.
			if !c.onDisk || !isBuild(ctx) {
				p.cache.put(k, c.data, class, c.provisional)
			}
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

// startFlight registers a load about to run under ctx, unless the pyramid
// is closed: the returned context also ends when Close is called, which
// waits for done.
func (p *Pyramid) startFlight(ctx context.Context) (context.Context, func(), bool) {
	p.flightMu.RLock()
	defer p.flightMu.RUnlock()
	if p.closed.Load() {
		return nil, nil, false
	}
	p.flights.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(p.life, cancel)
	return ctx, func() {
		stop()
		cancel()
		p.flights.Done()
	}, true
}

// fetch produces a chunk that is not in memory. A chunk the source does not
// hold yet, or one computed from such chunks, is provisional: kept in
// memory for a while but never in the disk cache. Chunks of levels finer
// than BuiltFrom stay in memory too: the disk cache has no room for them.
func (p *Pyramid) fetch(ctx context.Context, level int, idx []int) (loaded, int, error) {
	l := &p.meta.Levels[level]
	buf := make([]byte, l.ChunkBytes(p.meta.DType))
	if level < p.stored {
		p.countRead(ctx, level)
		err := p.src.ReadChunk(ctx, level, idx, buf)
		if loader.IsNotStored(err) {
			return loaded{data: buf, provisional: true}, classSource, nil
		}
		return loaded{data: buf}, classSource, err
	}
	if d := p.disk.Load(); d != nil && d.get(level, idx, buf) {
		return loaded{data: buf}, classComputed, nil
	}
	prov, err := p.computeChunk(ctx, level, idx, buf)
	if err != nil {
		return loaded{}, 0, err
	}
	p.compute.Add(1)
	onDisk := !prov && level >= p.built && p.putDisk(level, idx, buf)
	return loaded{buf, prov, onDisk}, classComputed, nil
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
	rb := getBuf(nd.Product(shape) * es)
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
		sb := getBuf(nd.Product(out) * es)
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
		nd.CopyBox(dst, l.Chunk, make([]int, n), small, out, make([]int, n), out, es)
	}
	return prov, nil
}

// gather copies the box [start, start+shape) of a level into dst (C order)
// and reports whether any chunk it used was provisional.
func (p *Pyramid) gather(ctx context.Context, level int, start, shape []int, dst []byte) (bool, error) {
	l := &p.meta.Levels[level]
	es := p.meta.DType.Size()
	n := len(start)
	lo, end := make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		lo[i] = start[i] / l.Chunk[i]
		end[i] = (start[i]+shape[i]-1)/l.Chunk[i] + 1
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
		nd.CopyBox(dst, shape, dstOff, c.data, l.Chunk, srcOff, box, es)
		if !nd.NextIn(idx, lo, end) {
			return prov, nil
		}
	}
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

// GetDerived returns chunk idx of level of the data derived from the
// pyramid that tag names (a projection, say) if it is in memory, else nil.
func (p *Pyramid) GetDerived(tag string, level int, idx []int) []byte {
	b, _ := p.cache.get(Key{Level: level, Idx: IdxKey(idx), Derived: tag})
	return b
}

// PutDerived keeps chunk idx of level of the derived data tag names in the
// chunk cache, as a computed chunk (evicted after the source's), and tells
// the subscribers it arrived.
func (p *Pyramid) PutDerived(tag string, level int, idx []int, data []byte) {
	p.cache.put(Key{Level: level, Idx: IdxKey(idx), Derived: tag}, data, classComputed, false)
	p.subs.notify(Arrival{Level: level, Idx: append([]int(nil), idx...), Derived: tag})
}
