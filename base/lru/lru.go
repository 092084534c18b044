// Package lru is vastview's one byte-bounded least-recently-used cache
// core: chunk caches, shard indexes and decoded frames are all kept in it.
// A Cache is a plain core, not safe for concurrent use: each user wraps it
// with its own lock, and calls what it learns of evictions outside that
// lock (see Put's return value).
package lru

// Cache maps keys to values, each with a size in bytes, and drops the least
// recently used entries when the sizes add up to more than its budget.
type Cache[K comparable, V any] struct {
	budget int64
	used   int64
	items  map[K]*entry[K, V]
	root   entry[K, V] // sentinel of the ring: root.next is the newest
}

type entry[K comparable, V any] struct {
	key        K
	val        V
	size       int64
	prev, next *entry[K, V]
}

// Evicted is an entry Put dropped to stay within the budget.
type Evicted[K comparable, V any] struct {
	Key K
	Val V
}

// New returns an empty cache of budget bytes; a budget of 0 or less means
// no bound (the caller evicts with RemoveOldest).
func New[K comparable, V any](budget int64) *Cache[K, V] {
	c := &Cache[K, V]{budget: budget, items: map[K]*entry[K, V]{}}
	c.root.prev, c.root.next = &c.root, &c.root
	return c
}

// Get returns the value of k and marks it most recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	e, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.unlink(e)
	c.pushFront(e)
	return e.val, true
}

// Peek returns the value of k without marking it used.
func (c *Cache[K, V]) Peek(k K) (V, bool) {
	e, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	return e.val, true
}

// Put stores v of size bytes under k as the most recently used entry,
// replacing any value k had, then drops the least recently used other
// entries until the cache fits its budget (the new entry itself stays even
// if it alone is larger). It returns the entries dropped, the replaced
// value first, so that the caller can recycle them outside its lock.
func (c *Cache[K, V]) Put(k K, v V, size int64) []Evicted[K, V] {
	var out []Evicted[K, V]
	if old, ok := c.items[k]; ok {
		c.drop(old)
		out = append(out, Evicted[K, V]{old.key, old.val})
	}
	e := &entry[K, V]{key: k, val: v, size: size}
	c.items[k] = e
	c.pushFront(e)
	c.used += size
	for c.budget > 0 && c.used > c.budget && c.root.prev != e {
		last := c.root.prev
		c.drop(last)
		out = append(out, Evicted[K, V]{last.key, last.val})
	}
	return out
}

// Remove drops k and reports whether it was there.
func (c *Cache[K, V]) Remove(k K) bool {
	e, ok := c.items[k]
	if ok {
		c.drop(e)
	}
	return ok
}

// Oldest returns the least recently used entry.
func (c *Cache[K, V]) Oldest() (K, V, bool) {
	if c.root.prev == &c.root {
		var k K
		var v V
		return k, v, false
	}
	e := c.root.prev
	return e.key, e.val, true
}

// RemoveOldest drops the least recently used entry and returns it.
func (c *Cache[K, V]) RemoveOldest() (K, V, bool) {
	k, v, ok := c.Oldest()
	if ok {
		c.drop(c.root.prev)
	}
	return k, v, ok
}

// RemoveFunc drops every entry for which f is true, oldest first, and
// returns how many it dropped.
func (c *Cache[K, V]) RemoveFunc(f func(K, V) bool) int {
	n := 0
	for e := c.root.prev; e != &c.root; {
		prev := e.prev
		if f(e.key, e.val) {
			c.drop(e)
			n++
		}
		e = prev
	}
	return n
}

// Len is the number of entries.
func (c *Cache[K, V]) Len() int { return len(c.items) }

// Used is the sum of the entries' sizes.
func (c *Cache[K, V]) Used() int64 { return c.used }

func (c *Cache[K, V]) drop(e *entry[K, V]) {
	c.unlink(e)
	delete(c.items, e.key)
	c.used -= e.size
}

func (c *Cache[K, V]) unlink(e *entry[K, V]) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (c *Cache[K, V]) pushFront(e *entry[K, V]) {
	e.prev, e.next = &c.root, c.root.next
	c.root.next.prev = e
	c.root.next = e
}
