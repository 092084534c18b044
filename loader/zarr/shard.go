package zarr

import (
	"encoding/binary"
	"encoding/json"
	"math"

	"vastview/base/textutil"
	"vastview/loader/zarr/codec"
)

// sharding describes a sharded array: each stored object (a shard) holds a
// grid of inner chunks and an index of where each one lies.
type sharding struct {
	shape   []int // shard shape
	inner   []int // inner chunk shape (the read unit)
	per     []int // inner chunks per shard along each axis
	count   int   // inner chunks per shard
	atStart bool  // the index precedes the chunks (else it ends the shard)

	indexBytes  int64         // encoded size of the index
	indexCodecs []codec.Codec // bytes-to-bytes codecs of the index, encoding order
	indexBig    bool          // index entries are big-endian
}

// maxShardChunks bounds the inner chunks of one shard, hence the size of
// its index (16 bytes per chunk).
const maxShardChunks = 1 << 22

// emptyEntry marks an inner chunk that is not stored.
const emptyEntry = math.MaxUint64

// parseSharding reads a sharding_indexed configuration for shards of the
// given shape; it returns the sharding and the inner chunks' pipeline.
func parseSharding(conf json.RawMessage, shard []int, st sampleType) (*sharding, pipeline, error) {
	var c struct {
		ChunkShape    []int64     `json:"chunk_shape"`
		Codecs        []codecSpec `json:"codecs"`
		IndexCodecs   []codecSpec `json:"index_codecs"`
		IndexLocation *string     `json:"index_location"`
	}
	if err := json.Unmarshal(conf, &c); err != nil {
		return nil, pipeline{}, formatError("sharding_indexed: %v", err)
	}
	if len(c.ChunkShape) != len(shard) {
		return nil, pipeline{}, formatError("sharding_indexed: chunk_shape %v does not have %d axes", clipInts(c.ChunkShape), len(shard))
	}
	sh := &sharding{shape: shard, inner: make([]int, len(shard)), per: make([]int, len(shard)), count: 1}
	for i, v := range c.ChunkShape {
		if v <= 0 || v > int64(shard[i]) || int64(shard[i])%v != 0 {
			return nil, pipeline{}, formatError("sharding_indexed: chunk_shape %v does not divide the shard shape %v", clipInts(c.ChunkShape), shard)
		}
		sh.inner[i], sh.per[i] = int(v), shard[i]/int(v)
		if sh.per[i] > maxShardChunks/sh.count {
			return nil, pipeline{}, formatError("sharding_indexed: more than %d chunks per shard", maxShardChunks)
		}
		sh.count *= sh.per[i]
	}
	if loc := c.IndexLocation; loc != nil {
		switch *loc {
		case "start":
			sh.atStart = true
		case "end":
		default:
			return nil, pipeline{}, formatError("sharding_indexed: index_location %q is not \"start\" or \"end\"", textutil.Clip(*loc))
		}
	}
	if err := sh.parseIndexCodecs(c.IndexCodecs); err != nil {
		return nil, pipeline{}, err
	}
	if len(c.Codecs) == 0 {
		c.Codecs = []codecSpec{{Name: "bytes"}}
	}
	p, _, err := parseChain(c.Codecs, sh.inner, st, true)
	if err != nil {
		return nil, pipeline{}, err
	}
	return sh, p, nil
}

// parseIndexCodecs accepts the index codecs of a fixed-size index: "bytes"
// then any number of "crc32c".
func (sh *sharding) parseIndexCodecs(specs []codecSpec) error {
	sh.indexBytes = 16 * int64(sh.count)
	if len(specs) == 0 {
		return formatError("sharding_indexed: no index_codecs")
	}
	if specs[0].Name != "bytes" {
		return unsupported("shard index codec %q", textutil.Clip(specs[0].Name))
	}
	big, err := bigEndian(specs[0].Configuration)
	if err != nil {
		return err
	}
	sh.indexBig = big
	for _, s := range specs[1:] {
		if s.Name != "crc32c" {
			return unsupported("shard index codec %q", textutil.Clip(s.Name))
		}
		c, err := codec.FromV3(s.Name, s.Configuration)
		if err != nil {
			return err
		}
		sh.indexCodecs = append(sh.indexCodecs, c)
		sh.indexBytes += 4
	}
	return nil
}

// shardIndex is a decoded shard index: offset and byte count per inner
// chunk, in C order over the shard's inner grid.
type shardIndex []uint64

// decodeIndex checks and decodes the encoded index b.
func (sh *sharding) decodeIndex(b []byte) (shardIndex, error) {
	if int64(len(b)) != sh.indexBytes {
		return nil, formatError("shard index is %d bytes, expected %d", len(b), sh.indexBytes)
	}
	var err error
	for i := len(sh.indexCodecs) - 1; i >= 0; i-- {
		if b, err = sh.indexCodecs[i].Decode(nil, b, len(b)); err != nil {
			return nil, keyed("shard index", err)
		}
	}
	if len(b) != 16*sh.count {
		return nil, formatError("shard index decodes to %d bytes, expected %d", len(b), 16*sh.count)
	}
	idx := make(shardIndex, 2*sh.count)
	var order binary.ByteOrder = binary.LittleEndian
	if sh.indexBig {
		order = binary.BigEndian
	}
	for i := range idx {
		idx[i] = order.Uint64(b[8*i:])
	}
	return idx, nil
}

// entry returns the offset and size of the inner chunk at slot, and
// whether it is stored.
func (ix shardIndex) entry(slot int) (off, n uint64, ok bool) {
	off, n = ix[2*slot], ix[2*slot+1]
	return off, n, !(off == emptyEntry && n == emptyEntry)
}

// locate splits a read-unit index into the shard's grid index (written to
// shardIdx) and the inner chunk's slot within that shard.
func (sh *sharding) locate(idx, shardIdx []int) int {
	slot := 0
	for i, v := range idx {
		shardIdx[i] = v / sh.per[i]
		slot = slot*sh.per[i] + v%sh.per[i]
	}
	return slot
}
