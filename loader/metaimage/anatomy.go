package metaimage

import (
	"math"
	"strconv"
	"strings"

	"vastview/loader"
)

// anatomyOf returns where the samples lie in LPS patient coordinates, as
// ITK reads a MetaImage: axis k of the nd dimensions points along the k-th
// group of nd numbers of TransformMatrix (or Orientation, Rotation), scaled
// by its spacing, from Offset; the matrix wins over AnatomicalOrientation
// (ITK ignores the letters) and an identity matrix is LPS itself. Without
// a matrix, AnatomicalOrientation's letters (ITK's: "RAI" is the
// identity, each letter the side an axis runs from) give the directions
// (where ITK would take the identity). Nil when the header gives neither
// (nothing says the image lies in a patient; ITK would take the identity)
// or they are malformed or unknown ("???"). Only the first
// three dimensions are spatial; a 2-D image's Z is the normal of X and Y.
func anatomyOf(h *header, nd int, sp, or []float64) *loader.Anatomy {
	n := min(nd, 3)
	var dir [3][3]float64 // dir[k] is the direction of axis k
	ok := false
	for _, key := range []string{"transformmatrix", "orientation", "rotation"} {
		if s, found := h.Fields[key]; found {
			dir, ok = matrixDirs(s, nd)
			break
		}
	}
	if !ok {
		dir, ok = letterDirs(h.Fields["anatomicalorientation"], n)
	}
	if !ok {
		return nil
	}
	var aff [3][4]float64
	for k := range n {
		s := math.Abs(sp[k])
		if s == 0 || math.IsInf(s, 0) || math.IsNaN(s) {
			s = 1
		}
		for r := range 3 {
			aff[r][k] = dir[k][r] * s
		}
	}
	for r := range n {
		aff[r][3] = or[r]
	}
	loader.CompleteZ(&aff)
	if !loader.Finite(&aff) {
		return nil
	}
	return &loader.Anatomy{Affine: aff, Space: loader.SpaceLPS}
}

// matrixDirs reads the spatial axes' directions from an nd×nd
// TransformMatrix, axis after axis.
func matrixDirs(s string, nd int) ([3][3]float64, bool) {
	var dir [3][3]float64
	f := strings.Fields(s)
	if len(f) != nd*nd {
		return dir, false
	}
	for k := range min(nd, 3) {
		for r := range min(nd, 3) {
			v, err := strconv.ParseFloat(f[k*nd+r], 64)
			if err != nil {
				return dir, false
			}
			dir[k][r] = v
		}
	}
	return dir, true
}

// letterDirs reads the first n axes' directions from ITK's orientation
// letters, each the side an axis runs from: 'R' toward the left (+x in
// LPS), 'A' toward the posterior (+y), 'I' toward the superior (+z), and
// 'L', 'P', 'S' the other way.
func letterDirs(s string, n int) ([3][3]float64, bool) {
	var dir [3][3]float64
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) < n {
		return dir, false
	}
	used := 0
	for k := range n {
		i := strings.IndexByte("RLAPIS", s[k])
		if i < 0 || used&(1<<(i/2)) != 0 {
			return dir, false
		}
		used |= 1 << (i / 2)
		dir[k][i/2] = 1
		if i%2 == 1 {
			dir[k][i/2] = -1
		}
	}
	return dir, true
}
