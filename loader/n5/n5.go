// Package n5 reads N5 containers (the format of the Saalfeld lab's N5
// libraries, BigDataViewer, n5-viewer, Paintera and zarr-python's
// N5Store) from a local folder or over HTTP, and registers the format
// "n5" with the loader.
//
// A dataset is a folder with an attributes.json giving its "dimensions"
// and "blockSize" (fastest-varying first: the reverse of C order),
// "dataType" and "compression" (raw, gzip, bzip2, blosc, zstd, lz4, xz);
// each block is a file at the dataset's path plus the
// block's grid position (fastest first), a big-endian header (mode, the
// number of dimensions, the block's own size, which is smaller at the
// array's edge when the N5 libraries write it and whole when zarr-python
// does) and the compressed big-endian samples. A group whose s0, s1, ...
// are datasets (n5-viewer's scale levels, a BigDataViewer timepoint) is
// one image with those levels, scaled by their "downsamplingFactors" (or
// the group's "scales", or BigDataViewer's per-setup list); the
// timepoints of a BigDataViewer setup that agree in their levels' shapes
// are one image whose T axis runs over them. A group holding several
// images lists them as series, selected by index or by path
// ("container.n5#setup1", "container.n5#em/raw"). Groups are searched in a local
// folder; over HTTP, which cannot list, the address must be a dataset or
// a multiscale group. Blocks are read on demand; a block that is not
// stored reads as zeros with an error matching loader.ErrNotStored.
package n5

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"vastview/loader"
	"vastview/loader/zarr/store"
)

// format is N5 as the registry knows it: a folder holding an
// attributes.json (a container, a group or a dataset), or an address at or
// below a .n5 folder.
var format = loader.Format{
	Name: "n5", Titles: []string{"N5"}, Open: openSource, Exts: []string{".n5"},
	Markers: []string{attributesFile}, URL: isN5Address,
}

func init() { loader.Register(format) }

// Match reports whether path is a folder holding an attributes.json, or an
// http(s) address ending in .n5 or naming a folder below one. head must be
// nil. It is safe for concurrent use.
func Match(p string, head []byte) bool { return format.Claims(p, head) }

// isN5Address reports whether an address is at or below a .n5 folder, and
// not a Zarr store kept inside one (a query string is no glob pattern).
func isN5Address(p string) bool {
	u := strings.ToLower(p)
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	u = strings.TrimRight(u, "/")
	if strings.HasSuffix(u, ".zarr") {
		return false // a Zarr store kept inside an N5 folder
	}
	return strings.HasSuffix(u, ".n5") || strings.Contains(u, ".n5/")
}

// attributesFile is the name of a group's or dataset's attributes.
const attributesFile = "attributes.json"

func openSource(ctx context.Context, location string) (loader.Source, error) {
	return Open(ctx, location)
}

// Open opens the N5 dataset, multiscale group or container at location:
// a folder, or an http:// or https:// address. A container of several
// images opens its first (see Meta().Series). Errors do not repeat the
// location.
func Open(ctx context.Context, location string) (*Source, error) {
	st, err := store.OpenContext(ctx, location)
	if err != nil {
		return nil, err
	}
	imgs, err := findImages(ctx, st)
	if err != nil {
		st.Close()
		return nil, err
	}
	first := 0
	for i := len(imgs) - 1; i >= 0; i-- {
		if imgs[i].err() == nil {
			first = i
		}
	}
	return newSource(ctx, st, imgs, first)
}

// err is why img cannot be read (nil when it can).
func (img *image) err() error {
	for _, d := range img.levels {
		if d.err != nil {
			return d.err
		}
	}
	return nil
}

// image is one image of a container: a dataset, or the scale levels of a
// multiscale group, level 0 first.
type image struct {
	path   string // "/"-separated, relative to the root ("" for the root)
	levels []*dataset
	// frames, for a BigDataViewer setup whose timepoints are joined, are
	// the timepoints' images, one per position on T (levels are the
	// first's).
	frames []*image
	group  *attrs // the multiscale group's attributes (nil for a dataset)
	parent *attrs // a BigDataViewer setup's attributes (nil if none)
}

// maxVisit bounds the groups searched for images in a folder: the
// images found in the first maxVisit are listed.
const maxVisit = 4096

// errStop ends the search for images once maxVisit groups are seen.
var errStop = errors.New("enough groups searched")

// maxDepth bounds how deep groups are searched.
const maxDepth = 8

// findImages returns the image at the root of st, or the images of the
// groups below it in a local folder (in natural order of their paths).
func findImages(ctx context.Context, st store.Store) ([]*image, error) {
	a, ok, err := readAttrs(ctx, st, "")
	if err != nil {
		return nil, err
	}
	img, err := imageAt(ctx, st, "", a, nil)
	if err != nil {
		return nil, err
	}
	if img != nil {
		return []*image{img}, nil
	}
	folder, isFolder := st.(*store.Folder)
	if !isFolder {
		if !ok {
			return nil, formatError("no %s at the address", attributesFile)
		}
		return nil, formatError("a group, which cannot be listed over HTTP: open one of its datasets or scale pyramids by its address")
	}
	var imgs []*image
	var skipped error // why the first image left out cannot be read
	visited := 0
	var walk func(dir string, parent *attrs, depth int) error
	walk = func(dir string, parent *attrs, depth int) error {
		entries, err := os.ReadDir(filepath.Join(folder.String(), filepath.FromSlash(dir)))
		if err != nil {
			return nil
		}
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if visited++; visited > maxVisit {
				return errStop
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			p := path.Join(dir, e.Name())
			a, _, err := readAttrs(ctx, st, p)
			if err != nil {
				return err
			}
			img, err := imageAt(ctx, st, p, a, parent)
			var ue *loader.UnsupportedError
			if errors.As(err, &ue) {
				skipped = cmp.Or(skipped, err)
				continue
			}
			if err != nil {
				return err
			}
			if img != nil {
				imgs = append(imgs, img)
				continue
			}
			if depth < maxDepth {
				if err := walk(p, a, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk("", a, 1); err != nil && err != errStop {
		return nil, err
	}
	if len(imgs) == 0 && skipped != nil {
		return nil, skipped
	}
	if len(imgs) == 0 {
		return nil, formatError("no datasets in the container")
	}
	slices.SortStableFunc(imgs, func(x, y *image) int { return loader.NaturalCompare(x.path, y.path) })
	return joinTimepoints(imgs), nil
}

// imageAt returns the image at dir (attributes a): a dataset, a group
// whose s0 is a dataset, or nil for another group.
func imageAt(ctx context.Context, st store.Store, dir string, a, parent *attrs) (*image, error) {
	if a.isDataset() {
		d, err := newDataset(dir, a)
		if err != nil {
			return nil, err
		}
		return &image{path: dir, levels: []*dataset{d}}, nil
	}
	img := &image{path: dir, group: a, parent: parent}
	for k := 0; k < 64; k++ {
		p := path.Join(dir, "s"+strconv.Itoa(k))
		la, ok, err := readAttrs(ctx, st, p)
		if err != nil {
			return nil, err
		}
		if !ok || !la.isDataset() {
			break
		}
		d, err := newDataset(p, la)
		if err != nil {
			return nil, err
		}
		if k > 0 && !shrinks(img.levels[0], img.levels[k-1], d) {
			break
		}
		img.levels = append(img.levels, d)
	}
	if len(img.levels) == 0 {
		return nil, nil
	}
	return img, nil
}

// shrinks reports whether level d can follow prev in a pyramid over l0:
// the same number of dimensions and sample type, no axis larger.
func shrinks(l0, prev, d *dataset) bool {
	if len(d.shape) != len(l0.shape) || d.dtype != l0.dtype {
		return false
	}
	for i := range d.shape {
		if d.shape[i] > prev.shape[i] {
			return false
		}
	}
	return true
}

// readAttrs reads and parses dir's attributes.json; ok is false (and a
// empty) when there is none.
func readAttrs(ctx context.Context, st store.Store, dir string) (a *attrs, ok bool, err error) {
	key := attributesFile
	if dir != "" {
		key = dir + "/" + attributesFile
	}
	b, info, err := store.GetAtMost(ctx, st, key, maxAttrs)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &attrs{}, false, nil
	case err != nil:
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		return nil, false, formatError("reading %s: %v", key, loader.StripPath(err))
	}
	a, err = parseAttrs(b)
	if err != nil {
		return nil, false, formatError("%s: %v", key, strings.TrimPrefix(err.Error(), "n5: attributes.json: "))
	}
	a.info = info
	return a, true, nil
}

// imageMeta describes img: its axes, its levels' shapes and blocks, the
// spacing of level 0 and each level's scale and translation from the
// downsampling factors.
func imageMeta(img *image) (*loader.Meta, error) {
	l0 := img.levels[0]
	n := len(l0.shape)
	axes := axesOf(l0.attrs, n)
	spacing, units := make([]float64, n), make([]string, n)
	res, resUnits := l0.attrs.resolution()
	if res == nil && img.group != nil {
		res, resUnits = img.group.resolution()
	}
	for i := range spacing {
		spacing[i] = 1
		j := n - 1 - i // the N5 dimension
		if j < len(res) && res[j] > 0 && res[j] < 1e30 {
			spacing[i] = res[j]
			if j < len(resUnits) {
				units[i] = unitName(resUnits[j])
			}
		}
	}
	m := loader.NewMeta("n5", axes, l0.shape, l0.dtype, l0.block, spacing, units)
	for k, d := range img.levels[1:] {
		f := levelFactors(img, k+1, d)
		scale, trans := make([]float64, n), make([]float64, n)
		for i := range scale {
			scale[i] = spacing[i] * f[i]
			trans[i] = (f[i] - 1) / 2 * spacing[i]
		}
		m.Levels = append(m.Levels, loader.Level{Shape: d.shape, Chunk: d.block, Scale: scale, Translation: trans})
	}
	if img.frames != nil {
		m = withTime(m, len(img.frames))
	}
	return m, nil
}

// levelFactors returns level k's downsampling factors per axis (C
// order): its own "downsamplingFactors", else the group's "scales" or
// the BigDataViewer setup's "downsamplingFactors" entry, else the ratio
// of level 0's shape to its own.
func levelFactors(img *image, k int, d *dataset) []float64 {
	n := len(d.shape)
	f := factors(d.attrs.DownsamplingFactors, -1)
	if len(f) != n && img.group != nil {
		f = factors(img.group.Scales, k)
		if len(f) != n {
			f = factors(img.group.DownsamplingFactors, k)
		}
	}
	if len(f) != n && img.parent != nil {
		f = factors(img.parent.DownsamplingFactors, k)
	}
	out := make([]float64, n)
	for i := range out {
		if len(f) == n && f[n-1-i] >= 1 && f[n-1-i] < 1<<30 {
			out[i] = f[n-1-i]
		} else {
			out[i] = float64(img.levels[0].shape[i]) / float64(d.shape[i])
		}
	}
	return out
}

// describe is a short name of the image for messages and series.
func (img *image) describe() string {
	if img.path == "" {
		return "the root"
	}
	return img.path
}

// errNotStored is the error for a block the store does not hold.
func errNotStored(key string) error {
	return fmt.Errorf("n5: block %s: %w", key, loader.ErrNotStored)
}
