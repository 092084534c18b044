package video

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"vastview/loader"
)

// CacheDir returns the folder that keeps frame indexes, so that a video
// opened again needs no new scan. It defaults to <user cache>/vastview/video;
// tests and tools may replace it. An error disables the cache. It must be
// set before videos are opened and is read by concurrent Opens.
var CacheDir = func() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "vastview", "video"), nil
}

// identityOf is what a cached index must match: the file's absolute path,
// size and modification time. Only regular files have one.
func identityOf(path string) (loader.Identity, error) {
	id, err := loader.FileIdentity(path)
	if err != nil {
		return loader.Identity{}, err
	}
	if st, err := os.Stat(id.Path); err != nil || !st.Mode().IsRegular() {
		return loader.Identity{}, formatError("not a regular file")
	}
	return id, nil
}

// The cache file: magic, version, identity, stream parameters, frame
// count, timestamps, keyframe bits, and a CRC-32C of all that. Integers
// are little-endian.
const (
	cacheMagic   = "vvVIDEOi"
	cacheVersion = 1
	maxCacheFile = 16 + 9*maxFrames + 1<<20
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// entryPath is where the index of the file at abs is kept: one entry per
// path, replaced when the file changes.
func entryPath(dir, abs string) string {
	h := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, hex.EncodeToString(h[:16])+".idx")
}

// loadIndex returns the cached index of id, or nil when there is none or
// it is damaged or stale.
func loadIndex(id loader.Identity) *index {
	dir, err := CacheDir()
	if err != nil {
		return nil
	}
	name := entryPath(dir, id.Path)
	st, err := os.Stat(name)
	if err != nil || st.Size() > maxCacheFile {
		return nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	ix, err := decodeIndex(b, id)
	if err != nil {
		return nil
	}
	return ix
}

// storeIndex writes ix for id to the cache under a temporary name and
// renames it into place. Failures leave the cache without the entry.
func storeIndex(id loader.Identity, ix *index) {
	dir, err := CacheDir()
	if err != nil || os.MkdirAll(dir, 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".idx-*")
	if err != nil {
		return
	}
	_, err = f.Write(encodeIndex(ix, id))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), entryPath(dir, id.Path))
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// encodeIndex serialises ix with the identity of its file.
func encodeIndex(ix *index, id loader.Identity) []byte {
	n := len(ix.pts)
	b := make([]byte, 0, 128+len(id.Path)+9*n)
	b = append(b, cacheMagic...)
	b = binary.LittleEndian.AppendUint32(b, cacheVersion)
	b = appendString(b, id.Path)
	b = binary.LittleEndian.AppendUint64(b, uint64(id.Size))
	b = binary.LittleEndian.AppendUint64(b, uint64(id.MTime))
	b = appendString(b, ix.codec)
	b = appendString(b, ix.pixFmt)
	b = appendString(b, ix.colorSpace)
	b = binary.LittleEndian.AppendUint32(b, uint32(ix.width))
	b = binary.LittleEndian.AppendUint32(b, uint32(ix.height))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ix.rotation))
	mono := byte(0)
	if ix.mono {
		mono = 1
	}
	b = append(b, mono)
	b = binary.LittleEndian.AppendUint64(b, uint64(ix.tbNum))
	b = binary.LittleEndian.AppendUint64(b, uint64(ix.tbDen))
	b = binary.LittleEndian.AppendUint64(b, uint64(n))
	for _, p := range ix.pts {
		b = binary.LittleEndian.AppendUint64(b, uint64(p))
	}
	bits := make([]byte, (n+7)/8)
	for i, k := range ix.key {
		if k {
			bits[i/8] |= 1 << (i % 8)
		}
	}
	b = append(b, bits...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

var errStale = errors.New("cached index is for another file")

// decodeIndex parses a cache file written by encodeIndex for id.
func decodeIndex(b []byte, id loader.Identity) (*index, error) {
	if len(b) < len(cacheMagic)+8 || string(b[:len(cacheMagic)]) != cacheMagic {
		return nil, formatError("not a video index")
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, formatError("video index checksum mismatch")
	}
	r := &reader{b: body[len(cacheMagic):]}
	if v := r.u32(); v != cacheVersion {
		return nil, formatError("video index version %d", v)
	}
	got := loader.Identity{Path: r.str(), Size: int64(r.u64()), MTime: int64(r.u64())}
	if r.bad {
		return nil, formatError("video index is truncated")
	}
	if got != id {
		return nil, errStale
	}
	ix := &index{codec: r.str(), pixFmt: r.str(), colorSpace: r.str()}
	ix.width, ix.height = int(r.u32()), int(r.u32())
	ix.rotation = math.Float64frombits(r.u64())
	switch m := r.bytes(1); {
	case m == nil || m[0] > 1:
		return nil, formatError("video index mono flag")
	default:
		ix.mono = m[0] == 1
	}
	ix.tbNum, ix.tbDen = int64(r.u64()), int64(r.u64())
	n := r.u64()
	if r.bad || n == 0 || n > maxFrames || n > uint64(len(r.b))/8 {
		return nil, formatError("video index frame count")
	}
	ix.pts = make([]int64, n)
	for i := range ix.pts {
		ix.pts[i] = int64(r.u64())
	}
	bits := r.bytes(int((n + 7) / 8))
	if r.bad || len(r.b) != 0 {
		return nil, formatError("video index size")
	}
	if n%8 != 0 && bits[len(bits)-1]>>(n%8) != 0 {
		return nil, formatError("video index keyframe bits")
	}
	ix.key = make([]bool, n)
	for i := range ix.key {
		ix.key[i] = bits[i/8]&(1<<(i%8)) != 0
	}
	if math.IsNaN(ix.rotation) || math.IsInf(ix.rotation, 0) {
		return nil, formatError("video index rotation")
	}
	return ix, ix.check()
}

// reader takes little-endian fields off a byte slice; bad is set, and
// zeros returned, once a field runs past the end.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) bytes(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.bad, r.b = true, nil
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) u32() uint32 {
	if p := r.bytes(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if p := r.bytes(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (r *reader) str() string {
	n := r.u32()
	if n > 4096 {
		r.bad = true
		return ""
	}
	return string(r.bytes(int(n)))
}
