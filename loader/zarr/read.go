package zarr

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"vastview/loader"
	"vastview/loader/zarr/store"
)

// ReadChunk fills dst with the read unit at grid index idx of a level: the
// Zarr chunk, or the inner chunk of a sharded array. A unit the store does
// not hold reads as the fill value, with an error matching
// loader.ErrNotStored; when the next coarser level holds data over it,
// the error matches loader.ErrMissing too, and MissingChunks counts it.
// It is safe for concurrent use.
func (s *Source) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	err := s.read(ctx, level, idx, dst)
	if loader.IsNotStored(err) {
		return s.checkMissing(ctx, level, idx, err)
	}
	return err
}

// read is ReadChunk without the arguments' check and the count of
// missing units.
func (s *Source) read(ctx context.Context, level int, idx []int, dst []byte) error {
	a := s.levels[level]
	var extBuf [maxDims]int
	ext := extBuf[:len(idx)]
	for i, v := range idx {
		ext[i] = a.shape[i] - v*a.chunk[i]
	}
	if a.shard != nil {
		return s.readSharded(ctx, a, idx, ext, dst)
	}
	key := a.keys.key(a.dir, idx)
	data, err := s.st.Get(ctx, key)
	if err != nil {
		return s.failed(ctx, a, key, ext, dst, err)
	}
	if err := s.decode(a, data, ext, dst); err != nil {
		return chunkError(key, err)
	}
	return nil
}

// failed handles a store error for the unit under key: a missing value
// becomes the fill value and ErrNotStored.
func (s *Source) failed(ctx context.Context, a *array, key string, ext []int, dst []byte, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		fillChunk(dst, a.fill, a.chunk, ext)
		return fmt.Errorf("zarr: chunk %s: %w", key, loader.ErrNotStored)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var fe *loader.FormatError
	if errors.As(err, &fe) {
		return err
	}
	return storeError(key, err)
}

// chunkError names the read unit in a decoding error: "chunk KEY decodes
// to N bytes, expected M", "chunk KEY: zstd: ...".
func chunkError(name string, err error) error {
	var fe *loader.FormatError
	if errors.As(err, &fe) && strings.HasPrefix(fe.Msg, "decodes to ") {
		return formatError("chunk %s %s", name, fe.Msg)
	}
	return keyed("chunk "+name, err)
}
