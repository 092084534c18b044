package n5

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"vastview/loader"
)

// timepointPath is a BigDataViewer timepoint group's path: its setup's
// path, then "timepointN".
var timepointPath = regexp.MustCompile(`^(?:(.*)/)?timepoint([0-9]{1,9})$`)

// joinTimepoints replaces the timepoint groups of each BigDataViewer setup
// in imgs (in order) by one image whose T axis runs over them, in the
// order of their numbers, when there are several and they agree: the same
// levels, each of the same shape, block and sample type, and no T axis of
// their own. Other images stay as they are.
func joinTimepoints(imgs []*image) []*image {
	type tp struct {
		n   int
		img *image
	}
	groups := map[string][]tp{}
	var out []*image
	for _, img := range imgs {
		m := timepointPath.FindStringSubmatch(img.path)
		if m == nil {
			out = append(out, img)
			continue
		}
		n, _ := strconv.Atoi(m[2])
		if groups[m[1]] == nil {
			out = append(out, &image{path: m[1]}) // a placeholder, filled in below
		}
		groups[m[1]] = append(groups[m[1]], tp{n, img})
	}
	var joined []*image
	for _, img := range out {
		g, ok := groups[img.path]
		if !ok || img.levels != nil {
			joined = append(joined, img)
			continue
		}
		slices.SortStableFunc(g, func(a, b tp) int { return a.n - b.n })
		frames := make([]*image, len(g))
		for i, t := range g {
			frames[i] = t.img
		}
		if len(frames) < 2 || !agree(frames) {
			joined = append(joined, frames...)
			continue
		}
		f := frames[0]
		joined = append(joined, &image{path: img.path, levels: f.levels, group: f.group, parent: f.parent, frames: frames})
	}
	return joined
}

// agree reports whether the images have the same levels, of the same
// shapes, blocks and sample types, can be read, and have no T axis.
func agree(imgs []*image) bool {
	l0 := imgs[0].levels[0]
	if strings.Contains(axesOf(l0.attrs, len(l0.shape)), "T") || len(l0.shape) >= maxDims {
		return false
	}
	for _, img := range imgs {
		if img.err() != nil || len(img.levels) != len(imgs[0].levels) {
			return false
		}
		for k, d := range img.levels {
			o := imgs[0].levels[k]
			if d.dtype != o.dtype || !slices.Equal(d.shape, o.shape) || !slices.Equal(d.block, o.block) || !slices.Equal(d.bs, o.bs) {
				return false
			}
		}
	}
	return true
}

// withTime puts a T axis of n time points in front of m's axes: one
// sample per chunk, unit spacing.
func withTime(m *loader.Meta, n int) *loader.Meta {
	m.Axes = "T" + m.Axes
	m.Shape = append([]int{n}, m.Shape...)
	m.Spacing = append([]float64{1}, m.Spacing...)
	m.Units = append([]string{""}, m.Units...)
	for k := range m.Levels {
		l := &m.Levels[k]
		l.Shape = append([]int{n}, l.Shape...)
		l.Chunk = append([]int{1}, l.Chunk...)
		l.Scale = append([]float64{1}, l.Scale...)
		l.Translation = append([]float64{0}, l.Translation...)
	}
	return m
}
