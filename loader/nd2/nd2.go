// Package nd2 reads Nikon NIS-Elements ND2 files of the chunked layout
// (NIS-Elements 4 and later; files whose metadata is in the binary "LV"
// encoding). It registers the format "nd2" with the loader.
//
// Such a file is a sequence of chunks, each a 16-byte header (the magic
// 0x0ABECEDA, the length of the name field, the length of the data; all
// little-endian), a name field ("ImageDataSeq|7!", padded with zeros so
// that data often starts on a 4 KiB boundary) and the data. The last 40
// bytes of the file are the signature "ND2 CHUNK MAP SIGNATURE 0000001!"
// and the offset of the chunk map, a chunk whose data lists every chunk
// as its name (ending in '!') followed by its offset and size (uint64
// each), closed by the signature again. Chunks are found through the map
// alone; nothing else of the file is read at open.
//
// Metadata chunks hold LV items: a type byte, a name length in UTF-16
// code units, the NUL-terminated UTF-16 name, then the value (bool,
// integers, double, NUL-terminated UTF-16 string, length-prefixed bytes,
// or a level: an item count, a byte length, the items, and a table of
// their offsets). Lists are levels of unnamed items. Three chunks are
// read:
//   - ImageAttributesLV!: the frame's width, height, row stride in bytes,
//     components per pixel, bits per component in memory, compression and
//     the number of frames;
//   - ImageMetadataLV!: the experiment, a tree of loops (each level's
//     ppNextLevelEx holds the next, inner loop): time (TimeLoop,
//     NETimeLoop), Z stack (ZStackLoop: its step in µm) and multipoint
//     (XYPosLoop: its points, named);
//   - ImageMetadataSeqLV|0!: the picture's calibration (µm per pixel) and
//     its planes (channels: names, colours as 0x00BBGGRR).
//
// Frames are the chunks ImageDataSeq|N!, N counting over the product of
// the loops, the outermost loop slowest. A frame's data is an 8-byte
// double, the frame's acquisition time in ms, then rows of pixels (each
// row uiWidthBytes long) with the components (channels, or the red, green
// and blue of a colour camera) interleaved; with lossless compression,
// the pixels after the time stamp are one zlib stream. The time and Z
// loops become the T and Z axes, in the file's loop order; the components
// the C axis, just before "YX"; the points of a multipoint loop are
// series (loader.Meta.Series), each holding its own frames.
//
// The older layout, a JPEG 2000 file with Nikon's boxes, is refused with
// an UnsupportedError, as are files whose metadata is XML (ND2 version 2),
// tiled frames and lossy compression.
package nd2

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"vastview/base/textutil"
	"vastview/loader"
)

// format is ND2 as the registry knows it: the chunk magic 0x0ABECEDA as a
// little-endian 32-bit number; a JPEG 2000 file counts only when named
// .nd2 (a legacy ND2 file, which Open refuses with a clear message).
var format = loader.Format{
	Name: "nd2", Titles: []string{"ND2"}, Open: Open, Exts: []string{".nd2"},
	Magic: []loader.Magic{{Bytes: "\xda\xce\xbe\x0a"}},
	Sniff: func(path string, head []byte) bool {
		return bytes.HasPrefix(head, jp2Signature) && loader.HasExt(path, ".nd2")
	},
}

func init() { loader.Register(format) }

// chunkMagic starts every chunk (little-endian).
const chunkMagic = 0x0ABECEDA

// chunkHeader is the size of a chunk's header: magic, name length, data
// length.
const chunkHeader = 16

// Signatures of the chunked layout.
var (
	mapSignature     = []byte("ND2 CHUNK MAP SIGNATURE 0000001!")
	filemapSignature = []byte("ND2 FILEMAP SIGNATURE NAME 0001!")
	framePrefix      = "ImageDataSeq|"
)

// jp2Signature starts a JPEG 2000 file: the legacy ND2 layout.
var jp2Signature = []byte{0, 0, 0, 0x0C, 'j', 'P', ' ', ' '}

// Match reports whether head starts with the ND2 chunk magic, or is a
// JPEG 2000 file whose path ends in .nd2 (a legacy ND2 file, which Open
// refuses with a clear message). It is safe for concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

func formatError(format string, args ...any) error {
	return loader.Errorf("nd2", format, args...)
}

func unsupported(feature string) error {
	return &loader.UnsupportedError{Format: "nd2", Feature: feature}
}

// Open opens an ND2 file; a file of several multipoint positions opens as
// its first (see loader.SeriesOpener). The returned Source is safe for
// concurrent use.
func Open(ctx context.Context, path string) (loader.Source, error) {
	f, err := loader.OpenFile(path)
	if err != nil {
		return nil, err
	}
	img, err := parse(f)
	f.Close()
	if err != nil {
		if errors.Is(err, loader.ErrChanged) {
			return nil, formatError("%v", err)
		}
		return nil, err
	}
	img.path = path
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return img.open(0)
}

// chunkMap is where the chunks the reader uses are: metadata chunks by
// name, frames by sequence index. Offsets are those of the chunks'
// headers.
type chunkMap struct {
	named  map[string]int64
	frames map[int]int64
}

// maxFrameIndex bounds the frame numbers a chunk map may name.
const maxFrameIndex = 1 << 28

// readChunkMap finds and decodes the chunk map of f, under f's guard.
func readChunkMap(f *loader.File) (*chunkMap, error) {
	size := f.Size()
	tail, err := f.Bytes(size-40, 40)
	if err != nil || !bytes.Equal(tail[:32], mapSignature) {
		return nil, formatError("the chunk map signature is missing from the last 40 bytes: %v, or its writer never finished it", loader.ErrTruncated)
	}
	at := int64(binary.LittleEndian.Uint64(tail[32:]))
	name, data, err := chunkAt(f, at)
	if err != nil {
		return nil, formatError("the chunk map at byte %d: %v", at, err)
	}
	if !bytes.HasPrefix(name, filemapSignature) {
		return nil, formatError("the chunk map at byte %d is not one (its chunk is named %q)", at, textutil.Clip(string(cName(name))))
	}
	m := &chunkMap{named: map[string]int64{}, frames: map[int]int64{}}
	for pos := 0; ; {
		i := bytes.IndexByte(data[pos:], '!')
		if i < 0 {
			return nil, formatError("the chunk map ends inside an entry, without its closing signature")
		}
		key := data[pos : pos+i+1]
		if bytes.Equal(key, mapSignature) {
			break
		}
		pos += i + 1
		if len(data)-pos < 16 {
			return nil, formatError("the chunk map ends inside the entry of %q", textutil.Clip(string(key)))
		}
		off := int64(binary.LittleEndian.Uint64(data[pos:]))
		pos += 16
		if off < 0 || off > size-chunkHeader {
			continue // a chunk outside the file: as if absent
		}
		if n, ok := frameNumber(key); ok {
			m.frames[n] = off
		} else {
			m.named[string(key)] = off
		}
	}
	return m, nil
}

// frameNumber parses "ImageDataSeq|N!".
func frameNumber(key []byte) (int, bool) {
	s, ok := bytes.CutPrefix(key, []byte(framePrefix))
	if !ok || len(s) < 2 || len(s) > 10 {
		return 0, false
	}
	n, err := strconv.Atoi(string(s[:len(s)-1]))
	if err != nil || n < 0 || n >= maxFrameIndex {
		return 0, false
	}
	return n, true
}

// cName is a chunk's name field up to its first NUL.
func cName(field []byte) []byte {
	if i := bytes.IndexByte(field, 0); i >= 0 {
		return field[:i]
	}
	return field
}

// chunkAt returns the name field and data of the chunk whose header is
// at off, checked against the file (under f's guard).
func chunkAt(f *loader.File, off int64) (name, data []byte, err error) {
	h, err := f.Bytes(off, chunkHeader)
	if err != nil {
		return nil, nil, fmt.Errorf("no chunk header: %w", err)
	}
	if m := binary.LittleEndian.Uint32(h); m != chunkMagic {
		return nil, nil, fmt.Errorf("no chunk there (%#08x, not the chunk magic)", m)
	}
	nameLen := int64(binary.LittleEndian.Uint32(h[4:]))
	dataLen := binary.LittleEndian.Uint64(h[8:])
	rest := f.Size() - off - chunkHeader
	if nameLen > rest || dataLen > uint64(rest-nameLen) {
		return nil, nil, fmt.Errorf("a chunk of %d+%d bytes with %d left in the file: %w", nameLen, dataLen, rest, loader.ErrTruncated)
	}
	name, _ = f.Bytes(off+chunkHeader, nameLen)
	data, _ = f.Bytes(off+chunkHeader+nameLen, int64(dataLen))
	return name, data, nil
}

// namedChunk returns the data of the chunk the map names key, checking
// that the chunk there has that name; ok is false when the map has no
// such chunk.
func namedChunk(f *loader.File, m *chunkMap, key string) (data []byte, ok bool, err error) {
	off, ok := m.named[key]
	if !ok {
		return nil, false, nil
	}
	name, data, err := chunkAt(f, off)
	if err != nil {
		return nil, true, formatError("chunk %s at byte %d: %v", key, off, err)
	}
	if !bytes.HasPrefix(name, []byte(key)) {
		return nil, true, formatError("the chunk map puts %s at byte %d, where a chunk named %q is", key, off, textutil.Clip(string(cName(name))))
	}
	return data, true, nil
}
