package levels

import (
	"container/list"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Key names one chunk of one level.
type Key struct {
	Level int
	Idx   string // the chunk's grid index, as from IdxKey
}

// IdxKey encodes a chunk grid index as a map key.
func IdxKey(idx []int) string {
	var b strings.Builder
	for i, v := range idx {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(v))
	}
	return b.String()
}

// chunk classes: source chunks are cheap to read again, computed ones are
// not, so source chunks are evicted first.
const (
	classSource = iota
	classComputed
)

type entry struct {
	key   Key
	data  []byte
	class int
}

// lru is a byte-bounded least-recently-used cache of chunk buffers. It is
// not safe for concurrent use; cache wraps it with a lock.
type lru struct {
	budget int64
	used   int64
	lists  [2]*list.List
	items  map[Key]*list.Element
}

func newLRU(budget int64) *lru {
	return &lru{budget: budget, lists: [2]*list.List{list.New(), list.New()}, items: map[Key]*list.Element{}}
}

func (c *lru) get(k Key) []byte {
	if e, ok := c.items[k]; ok {
		c.lists[e.Value.(*entry).class].MoveToFront(e)
		return e.Value.(*entry).data
	}
	return nil
}

func (c *lru) put(k Key, data []byte, class int) {
	if e, ok := c.items[k]; ok {
		old := e.Value.(*entry)
		c.used += int64(len(data) - len(old.data))
		old.data = data
		c.lists[old.class].MoveToFront(e)
	} else {
		c.items[k] = c.lists[class].PushFront(&entry{key: k, data: data, class: class})
		c.used += int64(len(data))
	}
	for c.used > c.budget {
		victim := c.victim(k)
		if victim == nil {
			return // only the new chunk is left: keep it
		}
		c.remove(victim)
	}
}

// victim is the chunk to evict next, never the one named keep: the least
// recently used source chunk, else the least recently used computed one.
func (c *lru) victim(keep Key) *list.Element {
	for _, l := range c.lists {
		for e := l.Back(); e != nil; e = e.Prev() {
			if e.Value.(*entry).key != keep {
				return e
			}
		}
	}
	return nil
}

func (c *lru) remove(e *list.Element) {
	en := e.Value.(*entry)
	c.lists[en.class].Remove(e)
	delete(c.items, en.key)
	c.used -= int64(len(en.data))
}

// cache is the locked wrapper of lru; safe for concurrent use.
type cache struct {
	mu sync.Mutex
	c  *lru
}

func (c *cache) get(k Key) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.get(k)
}

func (c *cache) put(k Key, data []byte, class int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.put(k, data, class)
}

// Used returns the bytes held.
func (c *cache) usedBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.used
}

// DefaultCacheBytes is min(25% of the machine's memory, 4 GiB), or 1 GiB
// when the memory size cannot be read.
func DefaultCacheBytes() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					return min(kb*1024/4, 4<<30)
				}
			}
		}
	}
	return 1 << 30
}
