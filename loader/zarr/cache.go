package zarr

import (
	"container/list"
	"sync"
)

// indexCacheBytes bounds the memory the shard index cache holds.
const indexCacheBytes = 16 << 20

// indexCache keeps recently read shard indexes, least recently used
// dropped first, bounded in bytes. It is safe for concurrent use.
type indexCache struct {
	mu    sync.Mutex
	max   int
	used  int
	order *list.List // of *cacheEntry, most recent first
	byKey map[string]*list.Element
}

type cacheEntry struct {
	key string
	ix  shardIndex
}

func newIndexCache(maxBytes int) *indexCache {
	return &indexCache{max: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// size is the memory an entry holds, roughly.
func (e *cacheEntry) size() int { return 8*len(e.ix) + len(e.key) + 64 }

// get returns the cached index of key, or nil.
func (c *indexCache) get(key string) shardIndex {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).ix
}

// put stores the index of key, evicting old entries to stay in budget.
// An index larger than the whole budget is not kept.
func (c *indexCache) put(key string, ix shardIndex) {
	e := &cacheEntry{key: key, ix: ix}
	if e.size() > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.used -= el.Value.(*cacheEntry).size()
		c.order.Remove(el)
	}
	c.byKey[key] = c.order.PushFront(e)
	c.used += e.size()
	for c.used > c.max {
		el := c.order.Back()
		old := el.Value.(*cacheEntry)
		c.order.Remove(el)
		delete(c.byKey, old.key)
		c.used -= old.size()
	}
}

// drop forgets the index of key, if it is the one given (a newer one
// read meanwhile stays).
func (c *indexCache) drop(key string, ix shardIndex) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return
	}
	if e := el.Value.(*cacheEntry); len(e.ix) > 0 && len(ix) > 0 && &e.ix[0] == &ix[0] {
		c.order.Remove(el)
		delete(c.byKey, key)
		c.used -= e.size()
	}
}
