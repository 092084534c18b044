package video

import (
	"sync"

	"vastview/base/lru"
)

// frameCache keeps the frames decoded just before a backward step, so that
// the next steps back are copies rather than new ffmpeg runs, and frames
// that concurrent reads wait for. It is bounded in bytes and forgets the
// oldest frames first (reading a frame does not renew it). Its methods
// take the lock they are given, or (...Locked) expect it held.
type frameCache struct {
	budget int
	frames *lru.Cache[int, []byte]
	free   [][]byte // a buffer of an evicted frame, for reuse
}

// getLocked copies frame t into dst if the cache has it.
func (fc *frameCache) getLocked(t int, dst []byte) bool {
	if fc.frames == nil {
		return false
	}
	b, ok := fc.frames.Peek(t)
	if ok {
		copy(dst, b)
	}
	return ok
}

// buffer returns a frame buffer of n bytes.
func (fc *frameCache) buffer(mu *sync.Mutex, n int) []byte {
	mu.Lock()
	defer mu.Unlock()
	if k := len(fc.free); k > 0 {
		b := fc.free[k-1]
		fc.free = fc.free[:k-1]
		if len(b) == n {
			return b
		}
	}
	return make([]byte, n)
}

// putLocked keeps b as frame t (the cache owns b from now on).
func (fc *frameCache) putLocked(t int, b []byte) {
	if fc.budget < len(b) {
		return
	}
	if fc.frames == nil {
		fc.frames = lru.New[int, []byte](int64(fc.budget))
	}
	for _, e := range fc.frames.Put(t, b, int64(len(b))) {
		fc.free = append(fc.free[:0], e.Val)
	}
}

// clear drops every frame.
func (fc *frameCache) clear() {
	fc.frames, fc.free = nil, nil
}
