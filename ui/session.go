package ui

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"vastview/levels"
	"vastview/loader"
)

// session is one open dataset: its pyramid and the background build of its
// levels. Its methods are safe for concurrent use.
type session struct {
	name   string // path, or "demo"
	pyr    *levels.Pyramid
	cancel context.CancelFunc
	done   chan struct{}
	err    error // the build's error, read after done is closed

	start     chan struct{} // closed when the build may begin
	startOnce sync.Once

	// shown is set once a frame with data over the whole view is on
	// screen (the first_image of this data).
	shown atomic.Bool

	failMu   sync.Mutex
	failMsg  string    // the last chunk load that failed
	failedAt time.Time // when
}

// SessionOptions are the budgets a session is opened with.
type SessionOptions struct {
	CacheBytes, DiskBytes int64
}

// openSession builds the pyramid over src and starts computing its levels
// in the background, kept in the disk cache when the source is a file.
func openSession(name string, src loader.Source, opt SessionOptions) (*session, error) {
	// The background build keeps to a quarter of the disk cache (of the
	// memory cache for data with no disk identity, such as a URL): a long
	// movie gets thumbnail levels, not every level.
	id, idErr := loader.FileIdentity(name)
	build := opt.CacheBytes
	if build <= 0 {
		build = levels.DefaultCacheBytes()
	}
	lopt := levels.Options{CacheBytes: opt.CacheBytes}
	if idErr == nil && name != "demo" {
		build = opt.DiskBytes
		if root, err := levels.DefaultDiskRoot(); err == nil {
			if d, err := levels.OpenDisk(root, opt.DiskBytes); err == nil {
				lopt.Disk, lopt.Identity = d, id // without it levels live in memory only
			}
		}
	}
	lopt.BuildBytes = max(build/4, 0)
	pyr, err := levels.Open(src, lopt)
	if err != nil {
		src.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{name: name, pyr: pyr, cancel: cancel, done: make(chan struct{}), start: make(chan struct{})}
	go func() {
		defer close(s.done)
		// The build waits for the first complete frame (or two seconds),
		// so that it does not compete with it. One core is left for the
		// view; the demo's levels are only computed on demand (it is
		// 32 GiB).
		select {
		case <-s.start:
		case <-time.After(2 * time.Second):
		case <-ctx.Done():
			return
		}
		if name != "demo" {
			s.err = pyr.Build(ctx, max(1, runtime.GOMAXPROCS(0)-1))
		}
	}()
	return s, nil
}

// startBuild lets the background build begin; safe to call repeatedly.
func (s *session) startBuild() { s.startOnce.Do(func() { close(s.start) }) }

// built reports whether every level is computed.
func (s *session) built() bool {
	select {
	case <-s.done:
		return s.err == nil && s.name != "demo"
	default:
		return false
	}
}

// progress returns the chunks of computed levels built and in all.
func (s *session) progress() (done, total int64) {
	for _, lp := range s.pyr.Progress() {
		done += lp.Done
		total += lp.Total
	}
	return done, total
}

// failed notes a chunk load that failed (a server error, a damaged chunk).
func (s *session) failed(err error) {
	s.failMu.Lock()
	s.failMsg, s.failedAt = err.Error(), time.Now()
	s.failMu.Unlock()
}

// failShown is how long a failed load stays in the status bar.
const failShown = 10 * time.Second

// lastFailure returns the newest load failure of the last failShown.
func (s *session) lastFailure() (string, bool) {
	s.failMu.Lock()
	defer s.failMu.Unlock()
	return s.failMsg, s.failMsg != "" && time.Since(s.failedAt) < failShown
}

// close stops the build and releases the data.
func (s *session) close() {
	s.cancel()
	<-s.done
	s.pyr.Close()
}
