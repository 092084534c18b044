package tiff

import (
	"context"
	"io"
	"sync"
)

// How page k of the stack is found.
const (
	modeList       = iota // IFD offsets listed by walking the chain
	modeStride            // IFD k (k >= 1) at ifd1 + (k-1)*stride
	modeContiguous        // no IFDs: page k is page 0 shifted by k*shift
)

// pageIndex maps page numbers of the stack to IFD offsets. In list mode
// the offsets may still be being collected by a background walk; locate
// waits only until the requested page is known. It is safe for concurrent
// use.
type pageIndex struct {
	n       int // pages in the stack
	present int // stride mode: pages whose IFDs the file holds (the rest are cut off)
	mode    int
	ifd0    int64
	ifd1    int64
	stride  int64
	shift   int64

	mu       sync.Mutex
	offs     []int64 // list mode: stack pages found so far
	done     bool
	err      error
	progress chan struct{} // closed and replaced when offs grows or done
	stop     chan struct{}
	wg       sync.WaitGroup
}

// locate returns the IFD offset of page k and the shift to add to its block
// offsets, waiting for a background walk if needed.
func (x *pageIndex) locate(ctx context.Context, k int) (int64, int64, error) {
	switch x.mode {
	case modeStride:
		if k == 0 {
			return x.ifd0, 0, nil
		}
		if k >= x.present {
			return 0, 0, missing(k, x.present)
		}
		return x.offsetOf(k), 0, nil
	case modeContiguous:
		return x.ifd0, int64(k) * x.shift, nil
	}
	for {
		x.mu.Lock()
		if k < len(x.offs) {
			off := x.offs[k]
			x.mu.Unlock()
			return off, 0, nil
		}
		if x.done {
			err := x.err
			found := len(x.offs)
			x.mu.Unlock()
			if err == nil || isTruncated(err) {
				return 0, 0, missing(k, found)
			}
			return 0, 0, inPage(k, err)
		}
		ch := x.progress
		x.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-x.stop:
			return 0, 0, errClosed
		}
	}
}

// missing is the error for page k of a stack whose metadata promises more
// pages than the file holds.
func missing(k, found int) error {
	return truncErr("page %d is missing: the file holds %d pages", k, found)
}

// nextOf returns the IFD offset that must follow page k in the chain, or -1
// when it is not predicted (the last page, or the last one the file holds).
func (x *pageIndex) nextOf(k int) int64 {
	if x.mode != modeStride || k+1 >= x.n || k+1 >= x.present {
		return -1
	}
	return x.offsetOf(k + 1)
}

// publishBatch is how many pages a background walk finds between wake-ups.
const publishBatch = 256

// walkList walks the chain from first in a goroutine stopped by close,
// reading r (the same file), listing up to limit stack pages (all when
// limit <= 0).
func (x *pageIndex) walkList(f *file, r io.ReaderAt, first int64, limit int) {
	x.mode = modeList
	x.progress = make(chan struct{})
	x.stop = make(chan struct{})
	x.wg.Add(1)
	go func() {
		defer x.wg.Done()
		x.walk(&walker{f: f, r: r}, first, limit)
	}()
}

// setList sets x to list the stack pages at offs, all found.
func (x *pageIndex) setList(offs []int64) {
	x.mode, x.offs, x.n, x.done = modeList, offs, len(offs), true
}

func (x *pageIndex) walk(w *walker, off int64, limit int) {
	var batch []int64
	var err error
	for off != 0 && (limit <= 0 || len(x.offs)+len(batch) < limit) {
		var next int64
		var stack bool
		if next, stack, err = w.step(off); err != nil {
			break
		}
		if stack || len(w.chain) == 1 {
			batch = append(batch, off)
		}
		off = next
		if len(batch) >= publishBatch {
			if x.stopped() {
				return
			}
			x.publish(batch, false, nil)
			batch = batch[:0]
		}
	}
	x.publish(batch, true, err)
}

func (x *pageIndex) stopped() bool {
	select {
	case <-x.stop:
		return true
	default:
		return false
	}
}

func (x *pageIndex) publish(batch []int64, done bool, err error) {
	x.mu.Lock()
	x.offs = append(x.offs, batch...)
	x.done, x.err = done, err
	close(x.progress)
	x.progress = make(chan struct{})
	x.mu.Unlock()
}

// close stops a background walk and waits for it.
func (x *pageIndex) close() {
	if x.stop != nil {
		close(x.stop)
	}
	x.wg.Wait()
}
