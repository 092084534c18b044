package nrrd

import (
	"strings"

	"vastview/loader"
)

// anatomySpaces are the NRRD spaces that name anatomical directions, with
// the world frame each is presented in and the signs that take the file's
// world coordinates there (LAS goes to RAS by turning x round).
var anatomySpaces = map[string]struct {
	space string
	sign  [3]float64
}{
	"right-anterior-superior": {loader.SpaceRAS, [3]float64{1, 1, 1}},
	"left-anterior-superior":  {loader.SpaceRAS, [3]float64{-1, 1, 1}},
	"left-posterior-superior": {loader.SpaceLPS, [3]float64{1, 1, 1}},
	"ras":                     {loader.SpaceRAS, [3]float64{1, 1, 1}},
	"las":                     {loader.SpaceRAS, [3]float64{-1, 1, 1}},
	"lps":                     {loader.SpaceLPS, [3]float64{1, 1, 1}},
}

// anatomyOf returns where the samples lie in the patient when the header's
// "space" is anatomical (RAS, LAS, LPS, or their "-time" and "…T" forms)
// and "space directions" give X and Y a direction: columns X, Y, Z of the
// affine are those axes' space directions, its offset the "space origin"
// (0 when not given). A Z without a direction (2-D data) gets the unit
// normal of X and Y. Nil otherwise.
func anatomyOf(h *header, ax []fileAxis, g geometry) *loader.Anatomy {
	name := strings.ToLower(strings.TrimSpace(h.Fields["space"]))
	timed := false
	switch {
	case strings.HasSuffix(name, "-time"):
		name, timed = strings.TrimSuffix(name, "-time"), true
	case len(name) == 4 && name[3] == 't':
		name, timed = name[:3], true
	}
	sp, ok := anatomySpaces[name]
	if !ok {
		return nil
	}
	dim := 3
	if timed {
		dim = 4
	}
	var aff [3][4]float64
	found := 0
	for _, a := range ax {
		k := strings.IndexByte("XYZ", a.role)
		if k < 0 || a.dir == nil {
			continue
		}
		if len(a.dir) != dim {
			return nil
		}
		for r := range 3 {
			aff[r][k] = sp.sign[r] * a.dir[r]
		}
		found |= 1 << k
	}
	if found&3 != 3 {
		return nil
	}
	if len(g.origin) == dim {
		for r := range 3 {
			aff[r][3] = sp.sign[r] * g.origin[r]
		}
	}
	loader.CompleteZ(&aff)
	if !loader.Finite(&aff) {
		return nil
	}
	return &loader.Anatomy{Affine: aff, Space: sp.space}
}
