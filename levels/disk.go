package levels

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"vastview/internal/fsutil"
	"vastview/loader"
)

// Disk is a folder of computed levels, one entry per source. Entries are
// written chunk by chunk, each to a temporary name then renamed, so a build
// that is killed keeps its finished chunks; each chunk carries a checksum
// and is checked when read. Entries are evicted oldest-first beyond the
// size limit. It is safe for concurrent use.
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

// diskEntry holds the computed chunks of one source.
type diskEntry struct {
	dir string
}

// entry opens (or starts) the entry for a pyramid's source. A stale entry
// (other identity or geometry) is replaced. Other entries are then evicted,
// oldest first, until the cache fits its limit.
func (d *Disk) entry(id loader.Identity, p *Pyramid) (*diskEntry, error) {
	man := manifest{Identity: id, Axes: p.meta.Axes, DType: p.meta.DType.String(), Mode: p.mode, Levels: p.meta.Levels[p.stored:]}
	want, err := json.MarshalIndent(man, "", " ")
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(want)
	dir := filepath.Join(d.root, hex.EncodeToString(sum[:12]))
	mpath := filepath.Join(dir, "manifest.json")
	if have, err := os.ReadFile(mpath); err != nil || !bytes.Equal(have, want) {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := fsutil.WriteAtomic(mpath, want); err != nil {
			return nil, err
		}
	}
	now := time.Now()
	os.Chtimes(mpath, now, now)
	e := &diskEntry{dir: dir}
	e.removeTemps()
	d.evict(dir)
	return e, nil
}

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
		os.Remove(p)
		return false
	}
	copy(dst, b)
	return true
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// put stores a chunk with its checksum under a temporary name, then
// renames it into place.
func (e *diskEntry) put(level int, idx []int, data []byte) error {
	p := e.path(level, idx)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc32.Checksum(data, castagnoli))
	return fsutil.WriteAtomic(p, data, sum[:])
}

// removeTemps deletes temporary files a killed writer left behind.
func (e *diskEntry) removeTemps() {
	filepath.WalkDir(e.dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".tmp-") {
			os.Remove(path)
		}
		return nil
	})
}

// evict removes the least recently used entries other than keep until the
// folder fits the limit.
func (d *Disk) evict(keep string) {
	if d.limit <= 0 {
		return
	}
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
		if total <= d.limit {
			return
		}
		if e.dir != keep {
			os.RemoveAll(e.dir)
			total -= e.size
		}
	}
}
