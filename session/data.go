package session

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"vastview/levels"
	"vastview/loader"
)

// Data is one opened source with its pyramid: the disk cache of its
// computed levels and their background build. The session holds one
// reference while it shows the data and each export one more; the pyramid
// closes when the last is released, so switching files never fails an
// export. It is safe for concurrent use.
type Data struct {
	// Name is what was opened: a cleaned absolute path or a URL, or ""
	// for the built-in demo. Views and recent files are keyed by it.
	Name string
	// Pyr is the pyramid over the source.
	Pyr *levels.Pyramid

	persist bool // a file or URL whose levels and view are kept

	cancel context.CancelFunc
	done   chan struct{}
	err    error // the build's error, read after done is closed

	start     chan struct{} // closed when the build may begin
	startOnce sync.Once

	shown atomic.Bool // a frame with data everywhere was on screen

	refs atomic.Int32

	readWhenShown int64 // view bytes read when it became the data shown

	failMu   sync.Mutex
	failMsg  string    // the last chunk load that failed
	failedAt time.Time // when
	traced   string    // the failure last written to the trace
}

// DataOptions are the budgets and places a Data is opened with.
type DataOptions struct {
	// CacheBytes bounds the chunk cache (0: levels.DefaultCacheBytes).
	CacheBytes int64
	// DiskBytes bounds the disk cache of computed levels; DiskRoot is its
	// folder ("" : levels.DefaultDiskRoot; "-": none).
	DiskBytes int64
	DiskRoot  string
	// BuildAfter is how long the background build waits for the first
	// complete frame before it starts anyway.
	BuildAfter time.Duration
	// Hold keeps the build from starting until StartBuild (data opened
	// ahead of being shown).
	Hold bool
	// Labels makes the levels by the most frequent value, not the mean
	// (a label image, whether or not its file says so).
	Labels bool
}

// OpenData builds the pyramid over src (named name, see Data.Name) and
// starts computing its levels in the background once StartBuild is called
// or BuildAfter has passed, keeping them in the disk cache when the source
// has a file identity. It owns src: on error src is closed.
func OpenData(name string, src loader.Source, opt DataOptions) (*Data, error) {
	m := src.Meta()
	d := &Data{Name: name, done: make(chan struct{}), start: make(chan struct{})}
	d.refs.Store(1)
	lopt := levels.Options{CacheBytes: opt.CacheBytes, Mode: opt.Labels && !m.DType.Float()}
	// The background build keeps to a quarter of the disk cache (of the
	// memory cache for data with no disk identity, such as a URL): a long
	// movie gets thumbnail levels, not every level.
	build := opt.CacheBytes
	if build <= 0 {
		build = levels.DefaultCacheBytes()
	}
	d.persist = name != "" && !m.Synthetic
	if id, err := loader.SourceIdentity(name, src); err == nil && d.persist {
		if disk := openDisk(opt); disk != nil {
			lopt.Disk, lopt.Identity = disk, id
			build = opt.DiskBytes
		}
	}
	lopt.BuildBytes = max(build/4, 0)
	pyr, err := levels.Open(src, lopt)
	if err != nil {
		src.Close()
		return nil, err
	}
	d.Pyr = pyr
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	go d.build(ctx, m.Synthetic, opt.BuildAfter, opt.Hold)
	return d, nil
}

// openDisk opens the disk cache the options name, or returns nil.
func openDisk(opt DataOptions) *levels.Disk {
	root := opt.DiskRoot
	if root == "-" {
		return nil
	}
	if root == "" {
		var err error
		if root, err = levels.DefaultDiskRoot(); err != nil {
			return nil
		}
	}
	disk, err := levels.OpenDisk(root, opt.DiskBytes)
	if err != nil {
		return nil
	}
	return disk
}

// build computes the levels once the first complete frame is shown (or
// after wait), leaving one core to the view. Synthetic data (the demo, 32
// GiB) has its levels computed only where viewed.
func (d *Data) build(ctx context.Context, synthetic bool, wait time.Duration, hold bool) {
	defer close(d.done)
	if wait <= 0 {
		wait = 2 * time.Second
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	var timeout <-chan time.Time = t.C
	if hold {
		timeout = nil
	}
	select {
	case <-d.start:
	case <-timeout:
	case <-ctx.Done():
		return
	}
	if !synthetic {
		d.err = d.Pyr.Build(ctx, max(1, runtime.GOMAXPROCS(0)-1))
	}
}

// StartBuild lets the background build begin; safe to call repeatedly.
func (d *Data) StartBuild() { d.startOnce.Do(func() { close(d.start) }) }

// Built reports whether every level is computed.
func (d *Data) Built() bool {
	select {
	case <-d.done:
		return d.err == nil && !d.Pyr.Meta().Synthetic
	default:
		return false
	}
}

// BuildState reports the chunks of computed levels built and in all, and
// once the build has ended, whether it did and its error.
func (d *Data) BuildState() (done, total int64, ended bool, err error) {
	for _, lp := range d.Pyr.Progress() {
		done += lp.Done
		total += lp.Total
	}
	select {
	case <-d.done:
		return done, total, true, d.err
	default:
		return done, total, false, nil
	}
}

// Persist reports whether the data has a name to keep its view under (a
// file or URL, not the demo); its levels go to the disk cache when it is
// a file.
func (d *Data) Persist() bool { return d.persist }

// failed notes a chunk load that failed (a server error, a damaged chunk).
func (d *Data) failed(err error, now time.Time) {
	d.failMu.Lock()
	d.failMsg, d.failedAt = err.Error(), now
	d.failMu.Unlock()
}

// failShown is how long a failed load stays in the status bar.
const failShown = 10 * time.Second

// lastFailure returns the newest load failure of the last failShown, and
// whether it is new since the last call that asked for new ones.
func (d *Data) lastFailure(now time.Time, markTraced bool) (msg string, ok, fresh bool) {
	d.failMu.Lock()
	defer d.failMu.Unlock()
	ok = d.failMsg != "" && now.Sub(d.failedAt) < failShown
	fresh = ok && d.failMsg != d.traced
	if fresh && markTraced {
		d.traced = d.failMsg
	}
	return d.failMsg, ok, fresh
}

// acquire takes a reference; false if the data is closed already.
func (d *Data) acquire() bool {
	for {
		n := d.refs.Load()
		if n <= 0 {
			return false
		}
		if d.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release drops a reference; the last one stops the build and closes the
// pyramid, waiting for both.
func (d *Data) Release() {
	if d.refs.Add(-1) == 0 {
		d.cancel()
		<-d.done
		d.Pyr.Close()
	}
}
