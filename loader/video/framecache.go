package video

import "sync"

// frameCache keeps the frames decoded just before a backward step, so that
// the next steps back are copies rather than new ffmpeg runs, and frames
// that concurrent reads wait for. It is bounded in bytes and forgets the
// oldest frames first. Its methods take the lock they are given, or
// (...Locked) expect it held.
type frameCache struct {
	budget int
	used   int
	frames map[int][]byte
	order  []int    // frames, oldest first
	free   [][]byte // buffers of evicted frames, for reuse
}

// getLocked copies frame t into dst if the cache has it.
func (fc *frameCache) getLocked(t int, dst []byte) bool {
	b, ok := fc.frames[t]
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
		fc.frames = map[int][]byte{}
	}
	if old, ok := fc.frames[t]; ok {
		fc.frames[t] = b
		fc.free = append(fc.free[:0], old)
		return
	}
	for fc.used+len(b) > fc.budget && len(fc.order) > 0 {
		o := fc.order[0]
		fc.order = fc.order[1:]
		fc.used -= len(fc.frames[o])
		fc.free = append(fc.free[:0], fc.frames[o])
		delete(fc.frames, o)
	}
	fc.frames[t] = b
	fc.order = append(fc.order, t)
	fc.used += len(b)
}

// clear drops every frame.
func (fc *frameCache) clear() {
	fc.frames, fc.order, fc.free, fc.used = nil, nil, nil, 0
}
