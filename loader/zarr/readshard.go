package zarr

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"vastview/loader"
	"vastview/loader/zarr/store"
)

// readSharded reads the inner chunk idx of a sharded array: the shard's
// index (cached), then the chunk's byte range. An index from the cache
// that says the chunk is missing, or that leads to bytes which do not
// decode, is read again: the shard may have been written since.
func (s *Source) readSharded(ctx context.Context, a *array, idx, ext []int, dst []byte) error {
	sh := a.shard
	var shardBuf [maxDims]int
	shardIdx := shardBuf[:len(idx)]
	slot := sh.locate(idx, shardIdx)
	key := a.keys.key(a.dir, shardIdx)
	for fresh := false; ; fresh = true {
		ix, cached, err := s.shardIndex(ctx, sh, key, fresh)
		if err != nil {
			return s.failed(ctx, a, key, ext, dst, err)
		}
		off, n, ok := ix.entry(slot)
		if !ok {
			if cached {
				continue
			}
			fillChunk(dst, a.fill, a.chunk, ext)
			return fmt.Errorf("zarr: chunk %s: %w", innerName(key, slot), loader.ErrNotStored)
		}
		err = s.readInner(ctx, a, key, slot, off, n, ext, dst)
		if err == nil || !cached || ctx.Err() != nil || !staleIndexError(err) {
			return err
		}
		s.shards.drop(key, ix)
	}
}

// readInner reads and decodes the n bytes at off of the shard under key.
func (s *Source) readInner(ctx context.Context, a *array, key string, slot int, off, n uint64, ext []int, dst []byte) error {
	if off > 1<<62 || n > maxChunkBytes+maxChunkBytes/8+(1<<20) {
		return formatError("chunk %s: the shard index gives %d bytes at offset %d", innerName(key, slot), n, off)
	}
	data, err := s.st.GetRange(ctx, key, int64(off), int64(n))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, store.ErrOutOfRange) {
			return formatError("chunk %s: bytes %d-%d lie beyond the shard's end", innerName(key, slot), off, off+n-1)
		}
		if errors.Is(err, store.ErrNotFound) {
			return s.failed(ctx, a, innerName(key, slot), ext, dst, err)
		}
		return storeError(key, err)
	}
	if err := s.decode(a, data, ext, dst); err != nil {
		return chunkError(innerName(key, slot), err)
	}
	return nil
}

// staleIndexError reports whether err may come from a cached index that
// no longer matches its shard.
func staleIndexError(err error) bool {
	var fe *loader.FormatError
	return errors.As(err, &fe) || loader.IsNotStored(err)
}

// shardIndex returns the index of the shard under key, from the cache
// unless fresh is set; cached says where it came from. Concurrent reads of
// one index share one request.
func (s *Source) shardIndex(ctx context.Context, sh *sharding, key string, fresh bool) (ix shardIndex, cached bool, err error) {
	if !fresh {
		if ix := s.shards.get(key); ix != nil {
			return ix, true, nil
		}
	}
	ch := s.flight.DoChan(key, func() (any, error) {
		// Detached from the caller's context, so that one caller giving
		// up does not fail the others; the store's timeouts bound it.
		ix, err := s.readIndex(context.WithoutCancel(ctx), sh, key)
		if err == nil {
			s.shards.put(key, ix)
		}
		return ix, err
	})
	select {
	case <-ctx.Done():
		return nil, false, ctx.Err()
	case r := <-ch:
		if r.Err != nil {
			return nil, false, r.Err
		}
		return r.Val.(shardIndex), false, nil
	}
}

// readIndex reads and decodes the index of the shard under key.
func (s *Source) readIndex(ctx context.Context, sh *sharding, key string) (shardIndex, error) {
	var b []byte
	var err error
	if sh.atStart {
		b, err = s.st.GetRange(ctx, key, 0, sh.indexBytes)
	} else {
		b, err = s.st.GetRange(ctx, key, -sh.indexBytes, 0)
	}
	if err != nil {
		if errors.Is(err, store.ErrOutOfRange) {
			return nil, formatError("shard %s: shorter than its %d-byte index", key, sh.indexBytes)
		}
		return nil, err
	}
	ix, err := sh.decodeIndex(b)
	if err != nil {
		return nil, keyed("shard "+key, err)
	}
	return ix, nil
}

// innerName names inner chunk slot of the shard under key in messages.
func innerName(key string, slot int) string {
	return key + " inner " + strconv.Itoa(slot)
}
