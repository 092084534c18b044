package codec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"vastview/loader"
)

// TestBloscBad checks the errors for damaged numcodecs Blosc buffers.
func TestBloscBad(t *testing.T) {
	// zstd keeps the requested block size (splitting codecs enlarge it).
	good := numcodecsEncode(t, encoding{`ARRAYS["u2_image"]`,
		`{"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 1, "blocksize": 1000}`})[0]
	h, err := parseBloscHeader(good, 1<<30)
	if err != nil || h.nblocks < 3 {
		t.Fatalf("numcodecs buffer: %+v, %v", h, err)
	}
	mod := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	for _, c := range []struct {
		name  string
		buf   []byte
		limit int
		want  string
	}{
		{"truncated header", good[:10], h.nbytes, "header is truncated (10 of 16 bytes)"},
		{"cbytes beyond the buffer", good[:len(good)-1], h.nbytes, "compressed bytes, the chunk holds"},
		{"nbytes over limit", good, h.nbytes - 1, "more than the"},
		{"negative nbytes", mod(func(b []byte) { b[7] = 0x80 }), h.nbytes, "negative decoded size"},
		{"block offset past the end", mod(func(b []byte) {
			binary.LittleEndian.PutUint32(b[16+4:], uint32(len(b)+100))
		}), h.nbytes, "block 1 starts at"},
		{"block offset inside the header", mod(func(b []byte) {
			binary.LittleEndian.PutUint32(b[16+8:], 5)
		}), h.nbytes, "block 2 starts at 5"},
		{"offset table beyond the buffer", mod(func(b []byte) {
			binary.LittleEndian.PutUint32(b[8:], 1) // blocksize 1: nbytes offsets
		}), h.nbytes, "block offsets exceeds"},
		{"stream size beyond the buffer", mod(func(b []byte) {
			off := binary.LittleEndian.Uint32(b[16:])
			binary.LittleEndian.PutUint32(b[off:], uint32(len(b)))
		}), h.nbytes, "block 0: stream 0 claims"},
		{"version 3", mod(func(b []byte) { b[0] = 3 }), h.nbytes, "unsupported Blosc format version 3"},
		{"reserved flag", mod(func(b []byte) { b[2] |= flagReserved }), h.nbytes, "reserved header flag"},
		{"typesize 0", mod(func(b []byte) { b[3] = 0 }), h.nbytes, "typesize is 0"},
		{"blocksize 0", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[8:], 0) }), h.nbytes, "block size 0"},
		{"compressor 7", mod(func(b []byte) { b[2] |= 7 << 5 }), h.nbytes, "unsupported Blosc compressor code 7"},
		{"memcpyed with the wrong size", mod(func(b []byte) { b[2] |= flagMemcpyed }), h.nbytes, "uncompressed chunk of"},
	} {
		out, err := Blosc(nil, c.buf, c.limit)
		wantErr(t, c.name, err, c.want)
		if len(out) != 0 {
			t.Errorf("%s: %d bytes returned with the error", c.name, len(out))
		}
	}
}

// TestBloscSnappy checks that a numcodecs Blosc/snappy chunk is reported
// as unsupported.
func TestBloscSnappy(t *testing.T) {
	b := numcodecsEncode(t, encoding{`ARRAYS["i2_zeros"]`, `{"id": "blosc", "cname": "snappy", "clevel": 5, "shuffle": 1}`})[0]
	_, err := Blosc(nil, b, 1<<20)
	wantErr(t, "snappy", err, "unsupported Blosc compressor snappy")
	var ue *loader.UnsupportedError
	if !errors.As(err, &ue) {
		t.Errorf("snappy: %T, want *loader.UnsupportedError", err)
	}
}

// TestBloscLZCorrupt feeds broken BloscLZ streams in a Blosc buffer.
func TestBloscLZCorrupt(t *testing.T) {
	const n = 200 // one unsplit block of 200 bytes (typesize 1)
	for _, c := range []struct {
		name   string
		stream []byte
		want   string
	}{
		{"distance before the start", []byte{0x01, 'a', 'b', 0x20 | 0x01, 0x00, 0x00, 'c'}, "refers before the start"},
		{"literal run past the input", []byte{0x1f, 'a', 'b'}, "BloscLZ stream is truncated"},
		{"match at the end", []byte{0x01, 'a', 'b', 0x20, 0x00}, "BloscLZ stream is truncated"},
		{"far distance truncated", []byte{0x01, 'a', 'b', 0x20 | 0x1f, 0xff, 0x00}, "BloscLZ stream is truncated"},
		{"run past the block", []byte{0x00, 'a', 0xe0, 0xff, 0xff, 0x10, 0x00, 0x00, 'z'}, "past the end of its block"},
		{"short output", []byte{0x02, 'a', 'b', 'c'}, "decodes to 3 bytes, the block has 200"},
		{"empty stream", []byte{}, "BloscLZ stream is truncated"},
	} {
		buf := bloscBuf(flagDontSplit, 1, n, n, [][]byte{c.stream})
		_, err := Blosc(nil, buf, n)
		wantErr(t, c.name, err, c.want)
	}
	// A hand-made valid stream: 3 literals then a run of 197 from distance 1.
	ok := []byte{0x02, 'a', 'b', 'c', 0xe0, 197 - 9, 0x00, 0x00, 'x'}
	buf := bloscBuf(flagDontSplit, 1, n+1, n+1, [][]byte{ok})
	got, err := Blosc(nil, buf, n+1)
	want := append([]byte("abc"), bytes.Repeat([]byte{'c'}, 197)...)
	if err != nil || !bytes.Equal(got, append(want, 'x')) {
		t.Errorf("hand-made stream: %q, %v", got, err)
	}
}

// TestStreamsBad checks the errors of the other codecs for damaged input.
func TestStreamsBad(t *testing.T) {
	const img = `ARRAYS["u2_image"]`
	enc := numcodecsEncode(t, encoding{img, `{"id": "zlib", "level": 5}`}, encoding{img, `{"id": "gzip", "level": 5}`},
		encoding{img, `{"id": "zstd", "level": 3}`}, encoding{img, `{"id": "lz4", "acceleration": 1}`},
		encoding{img, `{"id": "bz2", "level": 9}`})
	zl, gz, zs, l4, bz := enc[0], enc[1], enc[2], enc[3], enc[4]
	const size = 97 * 151 * 2 // 29294
	flip := func(b []byte, i int) []byte {
		b = bytes.Clone(b)
		b[i] ^= 0x55
		return b
	}
	neg := bytes.Clone(l4)
	neg[3] = 0x80
	for _, c := range []struct {
		name  string
		k     Codec
		buf   []byte
		limit int
		want  string
	}{
		{"zlib truncated", theZlib, zl[:len(zl)/2], size, "zlib: stream is truncated"},
		{"zlib bad header", theZlib, flip(zl, 0), size, "zlib: "},
		{"zlib checksum", theZlib, flip(zl, len(zl)-1), size, "zlib: "},
		{"zlib over limit", theZlib, zl, size - 1, "more than the 29293"},
		{"gzip truncated", theGzip, gz[:len(gz)/2], size, "gzip: "},
		{"gzip over limit", theGzip, gz, size - 1, "more than the 29293"},
		{"zstd truncated", theZstd, zs[:len(zs)/2], size, "zstd: "},
		{"zstd over limit", theZstd, zs, size - 1, "more than the 29293"},
		{"lz4 short", theLZ4, l4[:3], size, "shorter than its 4-byte size"},
		{"lz4 negative size", theLZ4, neg, size, "negative decoded size"},
		{"lz4 over limit", theLZ4, l4, size - 1, "decodes to 29294 bytes, more than the 29293"},
		{"lz4 truncated", theLZ4, l4[:len(l4)/2], size, "lz4: block is corrupt"},
		{"bz2 truncated", theBZ2, bz[:len(bz)/2], size, "bz2: "},
		{"bz2 over limit", theBZ2, bz, size - 1, "more than the 29293"},
	} {
		_, err := c.k.Decode(nil, c.buf, c.limit)
		wantErr(t, c.name, err, c.want)
	}
}

// TestZstdFrames checks zstd input without a content size and input of
// several frames, which the decoder cannot size from the first header.
func TestZstdFrames(t *testing.T) {
	data := bytes.Repeat([]byte("vastview zstd frames "), 500)
	var stream bytes.Buffer
	enc, err := zstd.NewWriter(&stream)
	if err != nil {
		t.Fatal(err)
	}
	// Flushing before the end makes the encoder write a frame header
	// without the content size.
	enc.Write(data[:5000])
	enc.Flush()
	enc.Write(data[5000:])
	enc.Close()
	var h zstd.Header
	if err := h.Decode(stream.Bytes()); err != nil || h.HasFCS {
		t.Fatalf("streamed frame has a content size (%v)", err)
	}
	got, err := theZstd.Decode(nil, stream.Bytes(), len(data))
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("frame without content size: %d bytes, %v", len(got), err)
	}
	one, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	two := one.EncodeAll(data[:1000], one.EncodeAll(data[:1000], nil))
	got, err = theZstd.Decode(nil, two, 2000)
	if err != nil || !bytes.Equal(got, append(data[:1000:1000], data[:1000]...)) {
		t.Errorf("two frames: %d bytes, %v", len(got), err)
	}
	_, err = theZstd.Decode(nil, two, 1500)
	wantErr(t, "two frames over the limit", err, "more than the 1500")
}

// TestCRC32C checks the Zarr v3 crc32c codec with the standard check value
// of CRC-32C ("123456789" -> 0xE3069283).
func TestCRC32C(t *testing.T) {
	k, err := FromV3("crc32c", nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := binary.LittleEndian.AppendUint32([]byte("123456789"), 0xE3069283)
	got, err := k.Decode(nil, buf, 9)
	if err != nil || string(got) != "123456789" {
		t.Errorf("crc32c: %q, %v", got, err)
	}
	buf[4] ^= 1
	_, err = k.Decode(nil, buf, 9)
	wantErr(t, "crc32c mismatch", err, "crc32c: checksum mismatch (stored e3069283, computed")
	_, err = k.Decode(nil, buf[:3], 9)
	wantErr(t, "crc32c short", err, "shorter than its checksum")
	_, err = k.Decode(nil, buf, 8)
	wantErr(t, "crc32c over limit", err, "more than the 8 expected")
}

// TestNegativeLimit checks that a negative limit is an error, not a panic.
func TestNegativeLimit(t *testing.T) {
	for name, config := range seedConfigs {
		k, err := FromV2(json.RawMessage(config))
		if err != nil {
			t.Fatal(err)
		}
		seed, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := k.Decode(nil, seed, -1); err == nil || len(out) != 0 {
			t.Errorf("%s with limit -1: %d bytes, %v", name, len(out), err)
		}
	}
}
