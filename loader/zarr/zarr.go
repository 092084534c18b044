// Package zarr reads Zarr arrays and OME-Zarr images (OME-NGFF 0.1 to 0.4
// on Zarr v2, OME-NGFF 0.5 on Zarr v3) from a local folder or over HTTP,
// and registers the format "zarr" with the loader.
//
// An OME-NGFF multiscale image presents every level the file stores, with
// its axes (in the file's order, ending in y, x), units, scales and
// translations, and the "omero" channel display settings; a label image
// (image-label) is marked as one and gets its colours as a palette. A
// plain array presents one level, with axes from its dimension names when
// they are t, c, z, y, x, else YX, ZYX, CZYX or TCZYX by its number of
// dimensions. A labels group opens its first label image, a
// bioformats2raw container its first series.
//
// Chunks are read on demand. The read unit is the Zarr chunk, or for a
// sharded Zarr v3 array the inner chunk, fetched with a range read after
// the shard's index (kept in a small cache). Compressors and checksums
// are decoded by loader/zarr/codec, samples brought to little-endian C
// order. A chunk the store does not hold reads as the fill value with an
// error matching loader.ErrNotStored, and is looked up again on the next
// read: an array still being written fills in as it grows.
package zarr

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/singleflight"

	"vastview/loader"
	"vastview/loader/zarr/store"
)

// format is Zarr as the registry knows it: a folder holding Zarr metadata
// (zarr.json for v3; .zgroup, .zarray or .zattrs for v2), or any address
// (a store read over HTTP or from an object store).
var format = loader.Format{
	Name: "zarr", Titles: []string{"Zarr"}, Open: openSource, Exts: []string{".zarr"},
	Markers: []string{"zarr.json", ".zgroup", ".zarray", ".zattrs"},
	URL:     func(string) bool { return true },
}

func init() { loader.Register(format) }

// Match reports whether path is a URL (a query string, such as a
// presigned URL's, is no glob pattern) or a folder holding Zarr metadata
// (.zgroup, .zattrs, .zarray or zarr.json). head must be nil: files are
// never Zarr. It is safe for concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

func openSource(ctx context.Context, path string) (loader.Source, error) {
	s, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Open opens the Zarr array, OME-Zarr image, label image or labels group
// at location: a folder, or an http:// or https:// URL. Errors do not
// repeat the location.
func Open(ctx context.Context, location string) (*Source, error) {
	st, err := store.OpenContext(ctx, location)
	if err != nil {
		return nil, err
	}
	return OpenStore(ctx, st)
}

// OpenStore opens the image at the root of st. The Source closes st when
// it is closed; on error st is closed at once.
func OpenStore(ctx context.Context, st store.Store) (*Source, error) {
	s, err := openImage(ctx, st)
	if err != nil {
		st.Close()
		return nil, err
	}
	return s, nil
}

// Source is an opened Zarr array or OME-Zarr image. It is safe for
// concurrent use.
type Source struct {
	st     store.Store
	root   store.Info // what the store said of the root's metadata document
	meta   *loader.Meta
	levels []*array
	shards *indexCache        // recently read shard indexes
	flight singleflight.Group // shard index reads in progress
	bufs   sync.Pool          // of *[]byte, scratch space for decoding
	lost   missing            // units absent where the level above has data
}

// Meta describes the image. It is safe for concurrent use; the result must
// not be modified.
func (s *Source) Meta() *loader.Meta { return s.meta }

// Identity names the image's content for caches of what is derived from
// it: a folder's identity (loader.FileIdentity), or for a URL the address
// it is read from (the store's Origin: the endpoint too, without
// credentials or query string) with the ETag, Last-Modified and
// size of the root's metadata document as the server sent it; an error
// matching loader.ErrNoValidator if the server sent neither ETag nor
// Last-Modified. It is safe for concurrent use.
func (s *Source) Identity() (loader.Identity, error) {
	switch st := s.st.(type) {
	case *store.Folder:
		return loader.FileIdentity(st.String())
	case *store.HTTP:
		return loader.URLIdentity(st.Origin(), s.root.ETag, s.root.Modified, s.root.Size)
	}
	return loader.Identity{}, fmt.Errorf("no identity for a store in %s", s.st)
}

// Close closes the store; reads in flight end with an error.
func (s *Source) Close() error { return s.st.Close() }
