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
	"sync/atomic"
	"time"

	"vastview/base/fsutil"
	"vastview/loader"
)

// Disk is a folder of computed levels, one entry per source. Entries are
// written chunk by chunk, each to a temporary name then renamed, so a build
// that is killed keeps its finished chunks; each chunk carries a checksum
// and is checked when read. Entries are evicted oldest-first beyond the
// size limit, except those in use. It is safe for concurrent use, also by
// several processes: each holds a shared lock on the entries it uses,
// which are replaced or evicted only under an exclusive one, and removes
// only the temporary files of writers that have ended.
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
}

// diskEntry holds the computed chunks of one source. The pyramid using it
// holds a shared lock on its folder until close.
type diskEntry struct {
	dir     string
	lock    *fsutil.Lock
	damaged atomic.Int64 // chunk files found damaged by get
}

// Names in the cache root other than entries: an entry being made, and
// one being removed, each followed by its process's tag.
const (
	newPrefix   = ".new-"
	trashPrefix = ".trash-"
)

// staleTempAge is the age beyond which a temporary file whose writer its
// name cannot tell (see fsutil.StaleTemp) is removed: a chunk is written in
// far less.
const staleTempAge = time.Hour

// entry opens (or starts) the entry for a pyramid's source and locks it as
// in use. An entry that does not match (a damaged manifest) is replaced,
// unless another pyramid uses it: then the disk cache is not used. Other
// entries are then evicted, oldest first, until the cache fits its limit.
func (d *Disk) entry(id loader.Identity, p *Pyramid) (*diskEntry, error) {
	man := manifest{Identity: id, Axes: p.meta.Axes, DType: p.meta.DType.String(), Mode: p.mode, Levels: p.meta.Levels[p.stored:]}
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
			e := &diskEntry{dir: dir, lock: lock}
			e.removeTemps()
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

// close releases the entry for other processes to evict.
func (e *diskEntry) close() { e.lock.Unlock() }

func (e *diskEntry) path(level int, idx []int) string {
	return filepath.Join(e.dir, fmt.Sprintf("L%d", level), strings.ReplaceAll(IdxKey(idx), ",", "_"))
}

// has reports whether a finished chunk file exists (not checked).
func (e *diskEntry) has(level int, idx []int) bool {
	_, err := os.Stat(e.path(level, idx))
	return err == nil
}

// get reads a chunk into dst; false if it is missing or damaged (a damaged
// file is removed so that the chunk is computed again).
func (e *diskEntry) get(level int, idx []int, dst []byte) bool {
	p := e.path(level, idx)
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	if len(b) != len(dst)+4 || crc32.Checksum(b[:len(dst)], castagnoli) != binary.LittleEndian.Uint32(b[len(dst):]) {
		e.damaged.Add(1)
		os.Remove(p)
		return false
	}
	copy(dst, b)
	return true
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// put stores a chunk with its checksum under a temporary name, then
// renames it into place. A write that fails where another process has
// stored the same chunk meanwhile has lost a race, not failed.
func (e *diskEntry) put(level int, idx []int, data []byte) error {
	p := e.path(level, idx)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc32.Checksum(data, castagnoli))
	err := fsutil.WriteAtomic(p, data, sum[:])
	if err != nil {
		if b, rerr := os.ReadFile(p); rerr == nil && len(b) == len(data)+4 && bytes.Equal(b[:len(data)], data) && bytes.Equal(b[len(data):], sum[:]) {
			return nil
		}
	}
	return err
}

// removeTemps deletes the temporary files that writers which have ended
// (killed, say) left behind, and those older than staleTempAge whose
// writer cannot be told; those of running writers, in this process or
// another, stay.
func (e *diskEntry) removeTemps() {
	filepath.WalkDir(e.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), fsutil.TempPrefix) {
			return nil
		}
		if info, err := d.Info(); err == nil && fsutil.StaleTemp(d.Name(), info.ModTime(), staleTempAge) {
			os.Remove(path)
		}
		return nil
	})
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
		if d.limit <= 0 || !de.IsDir() {
			continue
		}
		var e ent
		e.dir = dir
		if st, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
			e.used = st.ModTime()
		}
		filepath.WalkDir(dir, func(_ string, f fs.DirEntry, err error) error {
			if err == nil && !f.IsDir() {
				if info, err := f.Info(); err == nil {
					e.size += info.Size()
				}
			}
			return nil
		})
		total += e.size
		ents = append(ents, e)
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
