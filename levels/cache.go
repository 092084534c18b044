package levels

import (
	"container/list"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
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
	// provisional entries hold a placeholder for data the source did not
	// have yet (loader.ErrNotStored); they are dropped once older than
	// provisionalTTL, so that a revisit reads the chunk again.
	provisional bool
	at          time.Time
}

// provisionalTTL is how long a placeholder for a chunk the source did not
// hold is shown before the chunk is asked for again.
var provisionalTTL = 2 * time.Second

// lru is a byte-bounded least-recently-used cache of chunk buffers. It is
// not safe for concurrent use; cache wraps it with a lock.
type lru struct {
	budget int64
	used   int64
	lists  [2]*list.List
	items  map[Key]*list.Element
	prov   int // provisional entries held
}

func newLRU(budget int64) *lru {
	return &lru{budget: budget, lists: [2]*list.List{list.New(), list.New()}, items: map[Key]*list.Element{}}
}

// get returns the chunk's data and whether it is a placeholder; an
// expired placeholder is removed and reported absent.
func (c *lru) get(k Key) ([]byte, bool) {
	e, ok := c.items[k]
	if !ok {
		return nil, false
	}
	en := e.Value.(*entry)
	if en.provisional && time.Since(en.at) > provisionalTTL {
		c.remove(e)
		return nil, false
	}
	c.lists[en.class].MoveToFront(e)
	return en.data, en.provisional
}

func (c *lru) put(k Key, data []byte, class int, provisional bool) {
	if e, ok := c.items[k]; ok {
		c.remove(e)
	}
	en := &entry{key: k, data: data, class: class, provisional: provisional}
	if provisional {
		en.at = time.Now()
		c.prov++
	}
	c.items[k] = c.lists[class].PushFront(en)
	c.used += int64(len(data))
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
	if en.provisional {
		c.prov--
	}
}

// dropProvisional removes every placeholder and returns how many there were.
func (c *lru) dropProvisional() int {
	n := 0
	for _, l := range c.lists {
		for e := l.Back(); e != nil; {
			prev := e.Prev()
			if e.Value.(*entry).provisional {
				c.remove(e)
				n++
			}
			e = prev
		}
	}
	return n
}

// cache is the locked wrapper of lru; safe for concurrent use.
type cache struct {
	mu sync.Mutex
	c  *lru
}

func (c *cache) get(k Key) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.get(k)
}

func (c *cache) put(k Key, data []byte, class int, provisional bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.put(k, data, class, provisional)
}

func (c *cache) dropProvisional() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.dropProvisional()
}

func (c *cache) provisional() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.prov
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
