package levels

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"vastview/base/lru"
)

// Key names one chunk of one level, or, with Derived set, a chunk of data
// computed from the pyramid's (a projection), which the cache holds under
// the same budget.
type Key struct {
	Level   int
	Idx     string // the chunk's grid index, as from IdxKey
	Derived string // "" for the pyramid's own chunks, else what computed it
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

// item is a chunk in memory. A provisional item holds a placeholder for
// data the source did not have yet (loader.ErrNotStored); it is dropped
// once older than the placeholder lifetime (Options.PlaceholderTTL), so
// that a revisit reads the chunk again.
type item struct {
	data        []byte
	provisional bool
	at          time.Time
}

// DefaultPlaceholderTTL is how long a placeholder for a chunk the source
// did not hold is shown before the chunk is asked for again, unless
// Options.PlaceholderTTL says otherwise.
const DefaultPlaceholderTTL = 2 * time.Second

// chunks is the pyramid's chunk memory: one least-recently-used list per
// class under one byte budget, source chunks evicted before computed ones.
// It is not safe for concurrent use; cache wraps it with a lock.
type chunks struct {
	budget  int64
	ttl     time.Duration // how long a placeholder lives
	classes [2]*lru.Cache[Key, item]
	prov    int // provisional entries held
}

func newChunks(budget int64, ttl time.Duration) *chunks {
	return &chunks{budget: budget, ttl: ttl, classes: [2]*lru.Cache[Key, item]{lru.New[Key, item](0), lru.New[Key, item](0)}}
}

// get returns the chunk's data and whether it is a placeholder; an
// expired placeholder is removed and reported absent.
func (c *chunks) get(k Key) ([]byte, bool) {
	for class, l := range c.classes {
		it, ok := l.Get(k)
		if !ok {
			continue
		}
		if it.provisional && time.Since(it.at) > c.ttl {
			c.remove(class, k)
			return nil, false
		}
		return it.data, it.provisional
	}
	return nil, false
}

func (c *chunks) put(k Key, data []byte, class int, provisional bool) {
	for cl := range c.classes {
		c.remove(cl, k)
	}
	it := item{data: data, provisional: provisional}
	if provisional {
		it.at = time.Now()
		c.prov++
	}
	c.classes[class].Put(k, it, int64(len(data)))
	for c.used() > c.budget && c.evictOne(k) {
	}
}

// evictOne drops the least recently used source chunk, else the least
// recently used computed one, never the one named keep; false when only
// keep is left.
func (c *chunks) evictOne(keep Key) bool {
	for _, l := range c.classes {
		if k, _, ok := l.Oldest(); ok && k != keep {
			_, it, _ := l.RemoveOldest()
			if it.provisional {
				c.prov--
			}
			return true
		}
	}
	return false
}

func (c *chunks) remove(class int, k Key) {
	if it, ok := c.classes[class].Peek(k); ok {
		c.classes[class].Remove(k)
		if it.provisional {
			c.prov--
		}
	}
}

func (c *chunks) used() int64 { return c.classes[0].Used() + c.classes[1].Used() }

// dropProvisional removes every placeholder and returns how many there were.
func (c *chunks) dropProvisional() int {
	n := 0
	for _, l := range c.classes {
		n += l.RemoveFunc(func(_ Key, it item) bool { return it.provisional })
	}
	c.prov -= n
	return n
}

// cache is the locked wrapper of chunks; safe for concurrent use.
type cache struct {
	mu sync.Mutex
	c  *chunks
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

// setBudget changes the budget, evicting down to a smaller one.
func (c *cache) setBudget(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.budget = n
	for c.c.used() > n && c.c.evictOne(Key{Level: -1}) {
	}
}

// budgetBytes returns the budget.
func (c *cache) budgetBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.budget
}

// usedBytes returns the bytes held.
func (c *cache) usedBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.used()
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
