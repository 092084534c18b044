package zarr

import (
	"sync"

	"vastview/base/lru"
)

// indexCacheBytes bounds the memory the shard index cache holds.
const indexCacheBytes = 16 << 20

// indexCache keeps recently read shard indexes, least recently used
// dropped first, bounded in bytes. It is safe for concurrent use.
type indexCache struct {
	mu  sync.Mutex
	max int64
	c   *lru.Cache[string, shardIndex]
}

func newIndexCache(maxBytes int64) *indexCache {
	return &indexCache{max: maxBytes, c: lru.New[string, shardIndex](maxBytes)}
}

// indexSize is the memory an entry holds, roughly.
func indexSize(key string, ix shardIndex) int64 { return int64(8*len(ix) + len(key) + 64) }

// get returns the cached index of key, or nil.
func (c *indexCache) get(key string) shardIndex {
	c.mu.Lock()
	defer c.mu.Unlock()
	ix, _ := c.c.Get(key)
	return ix
}

// put stores the index of key, evicting old entries to stay in budget.
// An index larger than the whole budget is not kept.
func (c *indexCache) put(key string, ix shardIndex) {
	size := indexSize(key, ix)
	if size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.Put(key, ix, size)
}

// drop forgets the index of key, if it is the one given (a newer one
// read meanwhile stays).
func (c *indexCache) drop(key string, ix shardIndex) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.c.Peek(key); ok && len(e) > 0 && len(ix) > 0 && &e[0] == &ix[0] {
		c.c.Remove(key)
	}
}

// used is the memory held.
func (c *indexCache) used() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.Used()
}
