package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vastview/base/fsutil"
)

// DiskCache is a folder of values read from remote stores, each kept with
// the ETag and Last-Modified its server sent, so that it is used only after
// the server says it has not changed (or cannot be reached). Files are put
// in place atomically and carry a checksum; beyond the size limit the
// least recently used ones (by modification time, which a hit refreshes)
// are removed. It is safe for concurrent use, also by several processes.
type DiskCache struct {
	dir   string
	limit int64
	size  atomic.Int64 // bytes held, -1 until counted
	mu    sync.Mutex   // one eviction at a time
}

// cacheMagic starts every cache file.
const cacheMagic = "vvchunk1"

// OpenDiskCache uses dir (created if missing) for at most limit bytes.
func OpenDiskCache(dir string, limit int64) (*DiskCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	c := &DiskCache{dir: dir, limit: limit}
	c.size.Store(-1)
	return c, nil
}

var (
	defaultCacheOnce sync.Once
	defaultCache     *DiskCache
)

// DefaultDiskCache is the cache of remote values under the user cache
// directory (vastview/chunks), 2 GiB by default. VASTVIEW_CHUNK_CACHE sets
// the limit in MiB; 0 or "off" turns the cache off (nil).
func DefaultDiskCache() *DiskCache {
	defaultCacheOnce.Do(func() {
		limit := int64(2 << 30)
		switch v := strings.TrimSpace(os.Getenv("VASTVIEW_CHUNK_CACHE")); v {
		case "":
		case "off", "0":
			return
		default:
			mib, err := strconv.ParseInt(v, 10, 64)
			if err != nil || mib <= 0 {
				return
			}
			limit = mib << 20
		}
		root, err := os.UserCacheDir()
		if err != nil {
			return
		}
		defaultCache, _ = OpenDiskCache(filepath.Join(root, "vastview", "chunks"), limit)
	})
	return defaultCache
}

// cached is a value the cache holds.
type cached struct {
	data []byte
	info Info
}

// path is the file of key.
func (c *DiskCache) path(key string) string {
	h := sha256.Sum256([]byte(key))
	return filepath.Join(c.dir, hex.EncodeToString(h[:]))
}

// get returns the value kept for key, or nil. A damaged file is removed.
func (c *DiskCache) get(key string) *cached {
	p := c.path(key)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	v, ok := decodeCached(b, key)
	if !ok {
		os.Remove(p)
		return nil
	}
	if st, err := os.Stat(p); err == nil && time.Since(st.ModTime()) > time.Minute {
		now := time.Now()
		os.Chtimes(p, now, now)
	}
	return v
}

// put keeps data for key with what its server said of it, if it said
// enough to validate it later.
func (c *DiskCache) put(key string, data []byte, info Info) {
	if info.ETag == "" && (info.Modified.IsZero() || time.Since(info.Modified) < 2*time.Second) {
		// Last-Modified has whole seconds: a value changed again within
		// the second it names would look unchanged.
		return
	}
	if c.limit <= 0 || int64(len(data)) > c.limit/4 {
		return
	}
	head := cacheHead(key, data, info)
	if fsutil.WriteAtomic(c.path(key), head, data) != nil {
		return
	}
	if c.size.Load() < 0 || c.size.Add(int64(len(head)+len(data))) > c.limit {
		c.evict()
	}
}

// missingSuffix marks the key of an entry that says a value was missing
// (404), used only when the server cannot be reached.
const missingSuffix = "\x00missing"

// putMissing records that the value of a key (ending in missingSuffix)
// was missing.
func (c *DiskCache) putMissing(key string) {
	if c.get(key) == nil {
		c.put(key, nil, Info{ETag: "missing"})
	}
}

// cacheHead is what a cache file holds before the value: the magic, the
// key, the ETag, Last-Modified (Unix ns, 0 if none), the value's length
// and CRC-32.
func cacheHead(key string, data []byte, info Info) []byte {
	var mod int64
	if !info.Modified.IsZero() {
		mod = info.Modified.UnixNano()
	}
	head := []byte(cacheMagic)
	head = binary.AppendUvarint(head, uint64(len(key)))
	head = append(head, key...)
	head = binary.AppendUvarint(head, uint64(len(info.ETag)))
	head = append(head, info.ETag...)
	head = binary.AppendVarint(head, mod)
	head = binary.AppendUvarint(head, uint64(len(data)))
	return binary.LittleEndian.AppendUint32(head, crc32.ChecksumIEEE(data))
}

// decodeCached parses a cache file, checking that it holds key whole.
func decodeCached(b []byte, key string) (*cached, bool) {
	r, ok := bytes.CutPrefix(b, []byte(cacheMagic))
	if !ok {
		return nil, false
	}
	field := func() ([]byte, bool) {
		n, k := binary.Uvarint(r)
		if k <= 0 || n > uint64(len(r)-k) {
			return nil, false
		}
		f := r[k : k+int(n)]
		r = r[k+int(n):]
		return f, true
	}
	k, ok1 := field()
	etag, ok2 := field()
	if !ok1 || !ok2 || string(k) != key {
		return nil, false
	}
	mod, m := binary.Varint(r)
	if m <= 0 {
		return nil, false
	}
	r = r[m:]
	n, m := binary.Uvarint(r)
	if m <= 0 || len(r)-m < 4 || n != uint64(len(r)-m-4) {
		return nil, false
	}
	sum := binary.LittleEndian.Uint32(r[m:])
	data := r[m+4:]
	if crc32.ChecksumIEEE(data) != sum {
		return nil, false
	}
	v := &cached{data: data, info: Info{Size: int64(len(data)), ETag: string(etag)}}
	if mod != 0 {
		v.info.Modified = time.Unix(0, mod)
	}
	return v, true
}

// evict counts the folder and removes the oldest files until it holds at
// most 90% of the limit; it also removes stale temporary files.
func (c *DiskCache) evict() {
	c.mu.Lock()
	defer c.mu.Unlock()
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	for _, e := range ents {
		st, err := e.Info()
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if strings.HasPrefix(e.Name(), fsutil.TempPrefix) {
			if fsutil.StaleTemp(e.Name(), st.ModTime(), time.Hour) {
				os.Remove(filepath.Join(c.dir, e.Name()))
			}
			continue
		}
		files = append(files, file{e.Name(), st.Size(), st.ModTime()})
		total += st.Size()
	}
	if total > c.limit {
		slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
		for _, f := range files {
			if total <= c.limit/10*9 {
				break
			}
			if os.Remove(filepath.Join(c.dir, f.name)) == nil {
				total -= f.size
			}
		}
	}
	c.size.Store(total)
}

// unreachable reports whether err means the server could not be reached at
// all (no such host, connection refused), when a kept value may serve.
func unreachable(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}
