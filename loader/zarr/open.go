package zarr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"

	"golang.org/x/sync/errgroup"

	"vastview/base/textutil"
	"vastview/loader"
	"vastview/loader/zarr/store"
)

// maxDepth bounds how far a labels group or a bioformats2raw series is
// followed; maxLevels bounds the datasets of a multiscale image.
const (
	maxDepth    = 4
	maxLevels   = 64
	maxChannels = 4096 // more channels than this get no display settings
)

// openImage reads the metadata at the root of st, and keeps what the store
// said of the root's document.
func openImage(ctx context.Context, st store.Store) (*Source, error) {
	var root store.Info
	s, err := openAt(ctx, st, "", 0, &root)
	if err != nil {
		return nil, err
	}
	s.root = root
	return s, nil
}

// openAt opens the array or group under dir ("" or ending in "/"). The
// Info of the document that decides what it is goes to *info when info is
// not nil.
func openAt(ctx context.Context, st store.Store, dir string, depth int, info *store.Info) (*Source, error) {
	if depth > maxDepth {
		return nil, formatError("%s: groups refer to groups more than %d deep", strings.TrimSuffix(dir, "/"), maxDepth)
	}
	if info == nil {
		info = new(store.Info)
	}
	doc, ok, err := getMeta(ctx, st, dir+"zarr.json", info)
	if err != nil {
		return nil, err
	}
	if ok {
		return openV3(ctx, st, dir, doc, depth)
	}
	if doc, ok, err = getMeta(ctx, st, dir+".zarray", info); err != nil || ok {
		if err != nil {
			return nil, err
		}
		attrs, _, _ := getMeta(ctx, st, dir+".zattrs", nil)
		a, err := parseArrayV2(dir, doc, attrs)
		if err != nil {
			return nil, keyed(dir+".zarray", err)
		}
		return plainSource(st, a)
	}
	if doc, ok, err = getMeta(ctx, st, dir+".zattrs", info); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return openGroup(ctx, st, dir, 2, doc, dir+".zattrs", depth)
	}
	if _, ok, err = getMeta(ctx, st, dir+".zgroup", nil); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return nil, formatError("%s.zgroup: a group without .zattrs, so no image in it", dir)
	}
	if _, remote := st.(*store.HTTP); remote && dir == "" {
		// Nothing at a server's address is most often a wrong address.
		return nil, fmt.Errorf("not found: the server has no zarr.json, .zarray, .zattrs or .zgroup at this address: %w", fs.ErrNotExist)
	}
	if dir == "" {
		return nil, formatError("no Zarr metadata (zarr.json, .zarray, .zattrs or .zgroup)")
	}
	return nil, formatError("%s: no Zarr metadata (zarr.json, .zarray, .zattrs or .zgroup)", strings.TrimSuffix(dir, "/"))
}

// openV3 opens the Zarr v3 node whose zarr.json is doc.
func openV3(ctx context.Context, st store.Store, dir string, doc []byte, depth int) (*Source, error) {
	key := dir + "zarr.json"
	z, err := parseNodeV3(doc)
	if err != nil {
		return nil, keyed(key, err)
	}
	if z.NodeType == "array" {
		a, err := parseArrayV3(dir, z)
		if err != nil {
			return nil, keyed(key, err)
		}
		return plainSource(st, a)
	}
	attrs := z.Attributes
	if t := bytes.TrimSpace(attrs); len(t) == 0 || string(t) == "null" {
		attrs = []byte("{}")
	}
	return openGroup(ctx, st, dir, 3, attrs, key, depth)
}

// openGroup opens the group under dir whose attributes are attrs (read
// from key): a multiscale image, or the first image of a labels group or
// of a bioformats2raw series.
func openGroup(ctx context.Context, st store.Store, dir string, ver int, attrs []byte, key string, depth int) (*Source, error) {
	a, err := parseAttrs(attrs)
	if err != nil {
		return nil, keyed(key, err)
	}
	switch {
	case len(a.Multiscales) > 0:
		return openMultiscale(ctx, st, dir, ver, a, key)
	case len(a.Labels) > 0:
		p, err := relPath(a.Labels[0])
		if err != nil {
			return nil, keyed(key, err)
		}
		return openAt(ctx, st, dir+p+"/", depth+1, nil)
	case len(a.Layout) > 0:
		return openAt(ctx, st, dir+"0/", depth+1, nil)
	case len(a.Plate) > 0:
		return nil, unsupported("HCS plate")
	case len(a.Well) > 0:
		return nil, unsupported("HCS well")
	}
	return nil, formatError("%s: a group without multiscales metadata, so no image in it", key)
}

// openMultiscale opens the first multiscale image described in a.
func openMultiscale(ctx context.Context, st store.Store, dir string, ver int, a *ngffAttrs, key string) (*Source, error) {
	ms := &a.Multiscales[0]
	if len(ms.Datasets) == 0 {
		return nil, formatError("%s: multiscales has no datasets", key)
	}
	if len(ms.Datasets) > maxLevels {
		return nil, formatError("%s: multiscales lists %d datasets, more than %d", key, len(ms.Datasets), maxLevels)
	}
	arrays, err := readDatasets(ctx, st, dir, ver, ms.Datasets)
	if err != nil {
		return nil, err
	}
	m, err := multiscaleMeta(ms, arrays)
	if err != nil {
		return nil, keyed(key, err)
	}
	m.Label = a.ImageLabel != nil
	m.Palette = a.ImageLabel.palette()
	if !m.Label {
		m.Labels = labelsOf(ctx, st, dir, ver)
	}
	n := 1
	if c := m.AxisIndex('C'); c >= 0 {
		n = m.Shape[c]
	}
	if n <= maxChannels {
		m.Channels = a.Omero.channels(n)
	}
	if n > 1 {
		m.ChannelMode = a.Omero.mode()
	}
	return newSource(st, m, arrays)
}

// labelsOf lists the label images of the labels group beside the image
// under dir (its "labels" attribute), as paths from the store's root; none
// when there is no such group or it cannot be read (the image opens all
// the same).
func labelsOf(ctx context.Context, st store.Store, dir string, ver int) []string {
	key := dir + "labels/.zattrs"
	if ver == 3 {
		key = dir + "labels/zarr.json"
	}
	doc, ok, err := getMeta(ctx, st, key, nil)
	if err != nil || !ok {
		return nil
	}
	if ver == 3 {
		z, err := parseNodeV3(doc)
		if err != nil {
			return nil
		}
		doc = z.Attributes
	}
	a, err := parseAttrs(doc)
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range a.Labels {
		if p, err := relPath(l); err == nil && len(out) < maxChannels {
			out = append(out, dir+"labels/"+p)
		}
	}
	return out
}

// readDatasets reads the array metadata of every dataset, a few at once.
func readDatasets(ctx context.Context, st store.Store, dir string, ver int, ds []dataset) ([]*array, error) {
	arrays := make([]*array, len(ds))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i := range ds {
		g.Go(func() error {
			a, err := readDataset(gctx, st, dir, ver, ds[i].Path)
			arrays[i] = a
			return err
		})
	}
	return arrays, g.Wait()
}

// readDataset reads the metadata of the array at path p under dir.
func readDataset(ctx context.Context, st store.Store, dir string, ver int, p string) (*array, error) {
	rel, err := relPath(p)
	if err != nil {
		return nil, err
	}
	adir := dir + rel + "/"
	name := ".zarray"
	if ver == 3 {
		name = "zarr.json"
	}
	key := adir + name
	doc, ok, err := getMeta(ctx, st, key, nil)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, formatError("%s: missing, yet multiscales lists dataset %q", key, textutil.Clip(p))
	}
	var a *array
	if ver == 3 {
		var z *zarrJSON
		if z, err = parseNodeV3(doc); err == nil {
			a, err = parseArrayV3(adir, z)
		}
	} else {
		a, err = parseArrayV2(adir, doc, nil)
	}
	if err != nil {
		return nil, keyed(key, err)
	}
	return a, nil
}

// shrinks checks that level k (after prev) is no larger than prev on any
// axis and no larger than its scale says level 0 shrinks to (one sample of
// rounding allowed): a 1 KB document must not make a reader of a 256² image
// read 100000² samples.
func shrinks(l0, prev, l loader.Level, k int) error {
	for j := range l.Shape {
		limit := prev.Shape[j]
		if r := l.Scale[j] / l0.Scale[j]; r >= 1 && !math.IsInf(r, 0) {
			limit = min(limit, int(math.Ceil(float64(l0.Shape[j])/r))+1)
		}
		if l.Shape[j] > limit {
			return formatError("level %d is %v, larger than its scale allows under level 0 (%v): the levels of a multiscale image must shrink",
				k, l.Shape, l0.Shape)
		}
	}
	return nil
}

// multiscaleMeta describes a multiscale image whose levels are arrays.
func multiscaleMeta(ms *multiscale, arrays []*array) (*loader.Meta, error) {
	a0 := arrays[0]
	n := len(a0.shape)
	if len(ms.Axes) > 0 && len(ms.Axes) != n {
		return nil, formatError("%d axes for a %d-dimensional array", len(ms.Axes), n)
	}
	axes, units, err := axisLetters(ms.Axes, n)
	if err != nil {
		return nil, err
	}
	m := &loader.Meta{Format: "ome-zarr", Axes: axes, Shape: a0.shape, DType: a0.typ.dt, Units: units}
	for i, a := range arrays {
		if len(a.shape) != n || a.typ.dt != a0.typ.dt {
			return nil, formatError("level %d is a %d-dimensional %s array, level 0 a %d-dimensional %s one",
				i, len(a.shape), a.typ.dt, n, a0.typ.dt)
		}
		ds := ms.Datasets[i].Transforms
		if len(ds) == 0 {
			sc, tr := impliedGeometry(a0.shape, a.shape)
			ds = []transform{{Type: "scale", Scale: sc}, {Type: "translation", Translation: tr}}
		}
		scale, trans, err := geometry(ds, ms.Transforms, n)
		if err != nil {
			return nil, keyed(fmt.Sprintf("dataset %q", textutil.Clip(ms.Datasets[i].Path)), err)
		}
		m.Levels = append(m.Levels, loader.Level{Shape: a.shape, Chunk: a.chunk, Scale: scale, Translation: trans})
		if i > 0 {
			if err := shrinks(m.Levels[0], m.Levels[i-1], m.Levels[i], i); err != nil {
				return nil, err
			}
		}
	}
	m.Spacing = append([]float64(nil), m.Levels[0].Scale...)
	return m, nil
}

// plainSource presents one array as a single-level image.
func plainSource(st store.Store, a *array) (*Source, error) {
	axes, err := axesByNames(a.names, len(a.shape))
	if err != nil {
		return nil, err
	}
	m := loader.NewMeta("zarr", axes, a.shape, a.typ.dt, a.chunk, nil, nil)
	return newSource(st, m, []*array{a})
}

// newSource checks m and makes the Source.
func newSource(st store.Store, m *loader.Meta, arrays []*array) (*Source, error) {
	if err := m.Validate(); err != nil {
		return nil, formatError("%v", err)
	}
	s := &Source{st: st, meta: m, levels: arrays}
	for _, a := range arrays {
		if a.shard != nil {
			s.shards = newIndexCache(indexCacheBytes)
			break
		}
	}
	return s, nil
}

// relPath checks a path within the hierarchy and drops surrounding
// slashes.
func relPath(p string) (string, error) {
	r := strings.Trim(p, "/")
	if r == "" || strings.ContainsAny(r, "\\\x00") {
		return "", formatError("path %q is not a relative path in the store", textutil.Clip(p))
	}
	for seg := range strings.SplitSeq(r, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", formatError("path %q is not a relative path in the store", textutil.Clip(p))
		}
	}
	return r, nil
}

// maxMetaBytes bounds a metadata document (zarr.json, .zarray, .zattrs,
// .zgroup): real ones are kilobytes, a few megabytes with long lists of
// labels or plate wells.
const maxMetaBytes = 64 << 20

// getMeta reads a metadata document of at most maxMetaBytes; ok is false
// when the store does not hold it. What the store said of the document
// goes to *info when info is not nil.
func getMeta(ctx context.Context, st store.Store, key string, info *store.Info) (doc []byte, ok bool, err error) {
	doc, i, err := store.GetAtMost(ctx, st, key, maxMetaBytes)
	switch {
	case err == nil:
		if info != nil {
			*info = i
		}
		return doc, true, nil
	case errors.Is(err, store.ErrNotFound):
		return nil, false, nil
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case errors.Is(err, store.ErrTooLarge):
		return nil, false, formatError("%s: metadata document larger than %d MiB", key, maxMetaBytes>>20)
	}
	return nil, false, storeError(key, err)
}

// storeError wraps a store's error so that it names the key once.
func storeError(key string, err error) error {
	if strings.Contains(err.Error(), key) {
		return fmt.Errorf("zarr: %w", err)
	}
	return fmt.Errorf("zarr: %s: %w", key, err)
}
