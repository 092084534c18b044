package levels

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vastview/base/fsutil"
	"vastview/loader"
)

// Disk is a folder of computed levels, one entry per source. An entry
// keeps each level in slab files of fixed slots, one a chunk at a place
// given by its grid index, so that a build creates a few files, not one a
// chunk. A chunk is written into its slot, then a trailer with its
// checksum and a mark: a slot without the mark is missing, one whose
// checksum fails is damaged, and either is computed again and written
// over; a build that is killed keeps its finished chunks. Two writers of a
// chunk write the same bytes. Entries are evicted oldest-first beyond the
// size limit (by the blocks their files take), except those in use, and
// entries of the earlier layout (a file per chunk) are removed. It is
// safe for concurrent use, also by several processes: each holds a shared
// lock on the entries it uses, which are replaced or evicted only under an
// exclusive one.
type Disk struct {
	root  string
	limit int64
}

// DefaultDiskRoot is the levels folder under the user cache directory.
func DefaultDiskRoot() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "vastview", "levels"), nil
}

// OpenDisk uses root (created if missing) with a size limit in bytes.
func OpenDisk(root string, limit int64) (*Disk, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	return &Disk{root: root, limit: limit}, nil
}

// manifest is what an entry's manifest.json holds; an entry is used only
// if it equals what the source needs now.
type manifest struct {
	Identity loader.Identity `json:"identity"`
	Axes     string          `json:"axes"`
	DType    string          `json:"dtype"`
	Mode     bool            `json:"mode"`
	Levels   []loader.Level  `json:"levels"`
	Layout   int             `json:"layout"`
}

// diskLayout is the layout of the entries this code writes: 2 is slab
// files of chunk slots. Entries without it (a file per chunk) are removed.
const diskLayout = 2

// slabFileBytes bounds a slab file: a level larger than that takes
// several.
const slabFileBytes = 1 << 30

// trailerBytes end each chunk slot: the CRC-32C of the chunk, then
// slotMark. A slot never written reads as zeros, so without the mark.
const (
	trailerBytes = 8
	slotMark     = 0x31435656 // "VVC1"
)

// diskEntry holds the computed chunks of one source. The pyramid using it
// holds a shared lock on its folder until close.
type diskEntry struct {
	dir     string
	lock    *fsutil.Lock
	levels  []loader.Level // every level of the pyramid, its own first
	dtype   loader.DType
	damaged atomic.Int64 // chunks found damaged by get
	mu      sync.Mutex
	files   map[string]*slabFile // open slab files by name
}

// slabFile is an open slab file, opened for writing or only for reading.
type slabFile struct {
	f        *os.File
	writable bool
}

// Names in the cache root other than entries: an entry being made, and
// one being removed, each followed by its process's tag.
const (
	newPrefix   = ".new-"
	trashPrefix = ".trash-"
)

// entry opens (or starts) the entry for a pyramid's source and locks it as
// in use. An entry that does not match (a damaged manifest) is replaced,
// unless another pyramid uses it: then the disk cache is not used. Other
// entries are then evicted, oldest first, until the cache fits its limit.
func (d *Disk) entry(id loader.Identity, p *Pyramid) (*diskEntry, error) {
	man := manifest{Identity: id, Axes: p.meta.Axes, DType: p.meta.DType.String(), Mode: p.mode, Levels: p.meta.Levels[p.stored:], Layout: diskLayout}
	want, err := json.MarshalIndent(man, "", " ")
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(want)
	dir := filepath.Join(d.root, hex.EncodeToString(sum[:12]))
	mpath := filepath.Join(dir, "manifest.json")
	// Each turn finds the entry made, or makes it, or replaces a damaged
	// one; other processes doing the same make it take a few turns.
	for range 5 {
		lock, err := fsutil.LockDir(dir, fsutil.Shared)
		if errors.Is(err, fs.ErrNotExist) {
			if err := d.create(dir, want); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if have, err := os.ReadFile(mpath); err == nil && bytes.Equal(have, want) {
			now := time.Now()
			os.Chtimes(mpath, now, now)
			e := &diskEntry{dir: dir, lock: lock, levels: p.meta.Levels, dtype: p.meta.DType, files: map[string]*slabFile{}}
			d.evict(dir)
			return e, nil
		}
		lock.Unlock()
		if err := d.discard(dir); err != nil {
			return nil, fmt.Errorf("entry %s does not match the source: %w", filepath.Base(dir), err)
		}
	}
	return nil, fmt.Errorf("entry %s keeps changing", filepath.Base(dir))
}

// create makes the entry dir holding the manifest, in one rename; if
// another process made it first, that one stays.
func (d *Disk) create(dir string, man []byte) error {
	tmp, err := os.MkdirTemp(d.root, newPrefix+fsutil.ProcessTag()+"-")
	if err != nil {
		return err
	}
	err = os.Chmod(tmp, 0o755)
	if err == nil {
		err = fsutil.WriteAtomic(filepath.Join(tmp, "manifest.json"), man)
	}
	if err == nil {
		if err = os.Rename(tmp, dir); err == nil {
			return nil
		}
		if _, serr := os.Stat(dir); serr == nil {
			err = nil // made by another process
		}
	}
	os.RemoveAll(tmp)
	return err
}

// discard removes the entry dir unless a pyramid uses it (an error
// wrapping fsutil.ErrLocked). It is moved aside first, so that the name is
// free at once.
func (d *Disk) discard(dir string) error {
	lock, err := fsutil.TryLockDir(dir, fsutil.Exclusive)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	trash := filepath.Join(d.root, trashPrefix+fsutil.ProcessTag()+"-"+strconv.FormatUint(rand.Uint64(), 36))
	err = os.Rename(dir, trash)
	lock.Unlock()
	if err != nil {
		return err
	}
	return os.RemoveAll(trash)
}

// close closes the slab files and releases the entry for other processes
// to evict.
func (e *diskEntry) close() {
	e.mu.Lock()
	for _, f := range e.files {
		f.f.Close()
	}
	clear(e.files)
	e.mu.Unlock()
	e.lock.Unlock()
}

// locate returns the slab file holding chunk idx of a level, the offset of
// its slot there and the slot's size: the chunk, then its trailer at the
// slot's end, slots a whole number of pages.
func (e *diskEntry) locate(level int, idx []int) (name string, off, slot int64) {
	l := &e.levels[level]
	grid := l.Grid()
	var i int64
	for d, n := range grid {
		i = i*int64(n) + int64(idx[d])
	}
	slot = int64(l.ChunkBytes(e.dtype)+trailerBytes+4095) &^ 4095
	per := max(1, slabFileBytes/slot)
	return fmt.Sprintf("L%d.%d", level, i/per), i % per * slot, slot
}

// file returns the open slab file name, opened for writing (and created)
// if write is set; nil without error if it does not exist and write is
// not set.
func (e *diskEntry) file(name string, write bool) (*os.File, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if f, ok := e.files[name]; ok && (f.writable || !write) {
		return f.f, nil
	}
	path := filepath.Join(e.dir, name)
	flag := os.O_RDWR
	if write {
		flag |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flag, fsutil.FileMode)
	writable := err == nil
	if errors.Is(err, fs.ErrPermission) && !write {
		f, err = os.Open(path)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !write {
			return nil, nil
		}
		return nil, err
	}
	if old, ok := e.files[name]; ok {
		old.f.Close()
	}
	e.files[name] = &slabFile{f: f, writable: writable}
	return f, nil
}

// trailer reads the trailer of chunk idx's slot: its file, the slot's
// offset, the checksum, and whether the slot holds a chunk.
func (e *diskEntry) trailer(level int, idx []int) (*os.File, int64, uint32, bool) {
	name, off, slot := e.locate(level, idx)
	f, err := e.file(name, false)
	if f == nil || err != nil {
		return nil, 0, 0, false
	}
	var t [trailerBytes]byte
	if _, err := f.ReadAt(t[:], off+slot-trailerBytes); err != nil || binary.LittleEndian.Uint32(t[4:]) != slotMark {
		return nil, 0, 0, false
	}
	return f, off, binary.LittleEndian.Uint32(t[:4]), true
}

// has reports whether a finished chunk is stored (not checked).
func (e *diskEntry) has(level int, idx []int) bool {
	_, _, _, ok := e.trailer(level, idx)
	return ok
}

// get reads a chunk into dst; false if it is missing or damaged (then it
// is computed again and written over).
func (e *diskEntry) get(level int, idx []int, dst []byte) bool {
	f, off, sum, ok := e.trailer(level, idx)
	if !ok {
		return false
	}
	if _, err := f.ReadAt(dst, off); err != nil {
		return false
	}
	if crc32.Checksum(dst, castagnoli) != sum {
		e.damaged.Add(1)
		return false
	}
	return true
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// put stores a chunk in its slot, then the trailer that marks it stored:
// a reader never takes a chunk whose bytes are not all written.
func (e *diskEntry) put(level int, idx []int, data []byte) error {
	name, off, slot := e.locate(level, idx)
	f, err := e.file(name, true)
	if err != nil {
		return err
	}
	var t [trailerBytes]byte
	binary.LittleEndian.PutUint32(t[:4], crc32.Checksum(data, castagnoli))
	binary.LittleEndian.PutUint32(t[4:], slotMark)
	if _, err := f.WriteAt(data, off); err != nil {
		return err
	}
	_, err = f.WriteAt(t[:], off+slot-trailerBytes)
	return err
}

// evict removes the least recently used entries other than keep, and not
// in use, until the folder fits the limit; and what processes that ended
// left in the root while making or removing an entry.
func (d *Disk) evict(keep string) {
	type ent struct {
		dir  string
		used time.Time
		size int64
	}
	var ents []ent
	var total int64
	dirs, _ := os.ReadDir(d.root)
	for _, de := range dirs {
		dir := filepath.Join(d.root, de.Name())
		if strings.HasPrefix(de.Name(), ".") {
			tag, ok := fsutil.OwnerOf(de.Name(), newPrefix)
			if !ok {
				tag, ok = fsutil.OwnerOf(de.Name(), trashPrefix)
			}
			if ok && !fsutil.Alive(tag) {
				os.RemoveAll(dir)
			}
			continue
		}
		if !de.IsDir() {
			continue
		}
		var e ent
		e.dir = dir
		if st, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
			e.used = st.ModTime()
		}
		if dir != keep && !currentLayout(dir) {
			d.discard(dir) // unless an older version uses it
			continue
		}
		filepath.WalkDir(dir, func(_ string, f fs.DirEntry, err error) error {
			if err == nil && !f.IsDir() {
				if info, err := f.Info(); err == nil {
					e.size += fsutil.DiskUsage(info)
				}
			}
			return nil
		})
		total += e.size
		ents = append(ents, e)
	}
	if d.limit <= 0 {
		return
	}
	slices.SortFunc(ents, func(a, b ent) int { return a.used.Compare(b.used) })
	for _, e := range ents {
		if d.limit <= 0 || total <= d.limit {
			return
		}
		if e.dir != keep && d.discard(e.dir) == nil {
			total -= e.size
		}
	}
}

// currentLayout reports whether the entry dir has the layout this code
// writes; false for entries of the earlier layout, and for damaged ones.
func currentLayout(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist) // being made, or unreadable: left alone
	}
	var m struct {
		Layout int `json:"layout"`
	}
	return json.Unmarshal(b, &m) == nil && m.Layout == diskLayout
}
