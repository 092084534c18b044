package nrrd

import (
	"math"
	"strings"

	"vastview/loader"
	"vastview/loader/internal/rawvol"
)

// fileAxis is one NRRD axis (fastest first) and what the header says of it.
type fileAxis struct {
	size    int
	kind    string    // lower-case kind, "" if none
	dir     []float64 // space direction, nil if none or not given
	noDir   bool      // the space direction is explicitly "none"
	spacing float64   // from "spacings", NaN if not given
	unit    string    // from "units"
	role    byte      // 'X', 'Y', 'Z', 'T', 'C' once assigned
}

// kindRole classifies a NRRD kind: 'S' spatial, 'T' time, 'C' a range
// (vector, colour, list...), 0 unknown.
func kindRole(kind string) byte {
	switch kind {
	case "domain", "space":
		return 'S'
	case "time":
		return 'T'
	case "", "none", "???":
		return 0
	}
	return 'C'
}

// assignRoles decides which NRRD axis is X, Y, Z, T or C: kinds first,
// then space directions ("none" is not spatial), then a best guess: in 4-D
// and up a small fastest axis is channels, and a fourth spatial-looking
// axis is time. It fails unless two spatial axes are the fastest ones
// apart from an interleaved channel axis.
func assignRoles(ax []fileAxis) error {
	n := len(ax)
	for i := range ax {
		a := &ax[i]
		a.role = kindRole(a.kind)
		if a.role == 0 && a.noDir {
			a.role = 'N'
		}
	}
	for i := range ax {
		a := &ax[i]
		switch {
		case a.role == 'N' && i == 0:
			a.role = 'C'
		case a.role == 'N' && i == n-1:
			a.role = 'T'
		case a.role == 'N':
			a.role = 'C'
		case a.role == 0 && i == 0 && n >= 4 && a.size <= 4 && !hasRole(ax, 'C'):
			a.role = 'C'
		case a.role == 0:
			a.role = 'S'
		}
	}
	var spatial []int
	for i := range ax {
		if ax[i].role == 'S' {
			spatial = append(spatial, i)
		}
	}
	if len(spatial) == 4 && !hasRole(ax, 'T') {
		ax[spatial[3]].role = 'T'
		spatial = spatial[:3]
	}
	switch {
	case len(spatial) > 3:
		return unsupported("more than three spatial axes")
	case len(spatial) < 2:
		return unsupported("data with fewer than two spatial axes")
	case count(ax, 'C') > 1:
		return unsupported("more than one non-spatial axis of channels")
	case count(ax, 'T') > 1:
		return unsupported("more than one time axis")
	}
	for k, i := range spatial {
		ax[i].role = "XYZ"[k]
	}
	first := 0
	if ax[0].role == 'C' {
		first = 1
	}
	if ax[first].role != 'X' || ax[first+1].role != 'Y' {
		return unsupported("axis order with X and Y apart")
	}
	return nil
}

func hasRole(ax []fileAxis, r byte) bool { return count(ax, r) > 0 }

func count(ax []fileAxis, r byte) int {
	n := 0
	for _, a := range ax {
		if a.role == r {
			n++
		}
	}
	return n
}

// geometry holds the world information of a header.
type geometry struct {
	origin     []float64 // "space origin", nil if none
	spaceUnits []string  // "space units"
}

// buildMeta presents the NRRD axes in storage order (slowest first), the
// channel axis moved before Y when it is the fastest (interleaved).
func buildMeta(ax []fileAxis, dt loader.DType, g geometry) (*loader.Meta, bool) {
	interleaved := ax[0].role == 'C'
	var order []int // NRRD axis indices in presented order
	for i := len(ax) - 1; i >= 0; i-- {
		if interleaved && i == 0 {
			continue
		}
		if interleaved && ax[i].role == 'Y' {
			order = append(order, 0)
		}
		order = append(order, i)
	}
	n := len(order)
	axes := make([]byte, n)
	shape := make([]int, n)
	spacing := make([]float64, n)
	units := make([]string, n)
	trans := make([]float64, n)
	for k, i := range order {
		a := ax[i]
		axes[k], shape[k] = a.role, a.size
		spacing[k] = axisSpacing(a)
		units[k] = axisUnit(a, g)
		trans[k] = axisOrigin(a, g)
	}
	m := loader.NewMeta("nrrd", string(axes), shape, dt, rawvol.PlaneChunk(shape, interleaved), spacing, units)
	m.Levels[0].Translation = trans
	return m, interleaved
}

func axisSpacing(a fileAxis) float64 {
	if s := math.Abs(a.spacing); s > 0 && !math.IsInf(s, 0) {
		return s
	}
	if a.dir != nil {
		if s := norm(a.dir); s > 0 && !math.IsInf(s, 0) {
			return s
		}
	}
	return 1
}

// axisUnit is the axis' own unit, or for a spatial axis the space unit of
// the world axis its direction points along most.
func axisUnit(a fileAxis, g geometry) string {
	if u := rawvol.UnitName(a.unit); u != "" {
		return u
	}
	if a.role == 'T' || a.role == 'C' {
		return ""
	}
	k := int(a.role - 'X')
	if a.dir != nil {
		k = dominant(a.dir)
	}
	if k < len(g.spaceUnits) {
		return rawvol.UnitName(g.spaceUnits[k])
	}
	return ""
}

// axisOrigin is the space origin's coordinate along the axis' direction.
func axisOrigin(a fileAxis, g geometry) float64 {
	if a.dir == nil || len(g.origin) != len(a.dir) {
		return 0
	}
	l := norm(a.dir)
	if l == 0 {
		return 0
	}
	v := 0.0
	for i, d := range a.dir {
		v += g.origin[i] * (d / l)
	}
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v
	}
	return 0
}

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func dominant(v []float64) int {
	best := 0
	for i, x := range v {
		if math.Abs(x) > math.Abs(v[best]) {
			best = i
		}
	}
	return best
}

// lowerKinds normalises the "kinds" field.
func lowerKinds(k []string) []string {
	for i := range k {
		k[i] = strings.ToLower(k[i])
	}
	return k
}
