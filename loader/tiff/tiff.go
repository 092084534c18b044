// Package tiff reads classic and BigTIFF files, little and big endian, as
// lazily loaded stacks: pages become Z (or, with ImageJ or OME metadata, the
// T, Z and C axes the metadata gives), strips and tiles are decoded on
// demand, and a long stack with uniform pages is indexed by arithmetic
// instead of by visiting every page.
//
// Importing the package registers the "tiff" format with the loader.
package tiff

import (
	"context"
	"errors"

	"vastview/loader"
)

var errClosed = errors.New("tiff: source is closed")

func init() {
	loader.Register(loader.Format{Name: "tiff", Match: Match, Open: Open, Exts: []string{".tif", ".tiff", ".btf", ".tf8"}})
}

// Match reports whether head starts with a classic or BigTIFF header in
// either byte order. It is safe for concurrent use.
func Match(path string, head []byte) bool {
	if len(head) < 4 {
		return false
	}
	switch string(head[:4]) {
	case "II*\x00", "MM\x00*", "II+\x00", "MM\x00+":
		return true
	}
	return false
}

// Open opens the TIFF file at path. It reads the first page, the metadata
// and, for stacks whose pages are not laid out uniformly, starts indexing
// the pages in the background; Close stops that work. The returned Source
// is safe for concurrent use.
func Open(ctx context.Context, path string) (loader.Source, error) {
	lf, err := loader.OpenFile(path)
	if err != nil {
		return nil, err
	}
	s, err := newSource(lf, path)
	if err != nil {
		lf.Close()
		return nil, err
	}
	return s, nil
}
