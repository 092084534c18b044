// Package register makes the format "n5" known to the loader early. The
// loader tries formats in the order they register, and packages are
// initialised in the order of their import paths as far as their imports
// allow: package n5, which imports the Zarr packages, would register after
// the folder-of-frames format, which takes any folder. This package
// imports only the loader, so it registers first; the reader sets Open.
package register

import (
	"context"
	"errors"

	"vastview/loader"
)

// Match and Open are the reader's, set by package n5 when it is
// initialised (before any file is opened).
var (
	Match func(path string, head []byte) bool
	Open  func(ctx context.Context, path string) (loader.Source, error)
)

func init() {
	loader.Register(loader.Format{
		Name: "n5",
		Match: func(path string, head []byte) bool {
			return Match != nil && Match(path, head)
		},
		Open: func(ctx context.Context, path string) (loader.Source, error) {
			if Open == nil {
				return nil, errors.New("n5: the reader is not linked in")
			}
			return Open(ctx, path)
		},
		Exts: []string{".n5"},
	})
}
