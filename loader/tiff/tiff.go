// Package tiff reads classic and BigTIFF files, little and big endian, as
// lazily loaded stacks: pages become Z (or, with ImageJ or OME metadata, the
// T, Z and C axes the metadata gives), strips and tiles are decoded on
// demand, and a long stack with uniform pages is indexed by arithmetic
// instead of by visiting every page.
//
// A truncated file (a copy that stopped, a file still being written) opens
// with what it holds. Its shape is the one its metadata declares when page
// 0 carries a page count: ImageJ's images= (with channels=, slices=,
// frames=), OME-XML's sizes, or tifffile's shape description. Without one,
// the stack holds the pages whose IFDs are in the file, a page whose data
// is cut included. Pages the file does not hold, wholly or in part, fail on
// read with an error matching loader.ErrTruncated that names the page; the
// others read as from the whole file. (A large uncompressed page is read in
// bands of rows; the bands the file holds read too.) Uncompressed ImageJ and tifffile stacks
// store their images back to back before the IFDs of pages 1 and on, so
// every image whose bytes are there reads even when those IFDs are not.
// Metadata the file has lost is not guessed: tifffile writes OME-XML at the
// end of the file, so a cut copy of its OME-TIFF is a stack of the pages
// present. A file cut inside its header or first IFD does not open.
//
// The file is mapped, and IFDs and compressed blocks are parsed straight
// from the mapping (see loader.File). If the file shrinks while it is open
// (another program rewrites it, a network share drops it), reads of the
// pages it lost fail with an error matching loader.ErrTruncated and
// loader.ErrChanged that names the page; the program goes on.
//
// Importing the package registers the "tiff" format with the loader.
package tiff

import (
	"context"
	"errors"

	"vastview/loader"
)

var errClosed = errors.New("tiff: source is closed")

// format is TIFF as the registry knows it: a classic or BigTIFF header in
// either byte order.
var format = loader.Format{
	Name: "tiff", Titles: []string{"TIFF", "BigTIFF", "OME-TIFF", "ImageJ hyperstack"},
	Open: Open, Exts: []string{".tif", ".tiff", ".btf", ".tf8"},
	Magic: []loader.Magic{{Bytes: "II*\x00"}, {Bytes: "MM\x00*"}, {Bytes: "II+\x00"}, {Bytes: "MM\x00+"}},
}

func init() { loader.Register(format) }

// Match reports whether head starts with a classic or BigTIFF header in
// either byte order. It is safe for concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// Open opens the TIFF file at path. It reads the first page, the metadata
// and, for stacks whose pages are not laid out uniformly, starts indexing
// the pages in the background; Close stops that work. The returned Source
// is safe for concurrent use.
func Open(ctx context.Context, path string) (loader.Source, error) {
	return openBanded(path, defaultBanding)
}

// openBanded opens the TIFF file at path as Open does, cutting strip
// pages into chunks by bands.
func openBanded(path string, bands banding) (loader.Source, error) {
	lf, err := loader.OpenFile(path)
	if err != nil {
		return nil, err
	}
	s, err := newSource(lf, path, bands)
	if err != nil {
		lf.Close()
		return nil, err
	}
	return s, nil
}
