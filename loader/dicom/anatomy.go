package dicom

import "vastview/loader"

// position returns the ImagePositionPatient of plane z, or nil.
func (v *volume) position(z int) []float64 {
	s, f := v.plane(z)
	if len(v.slices) == 1 && s.framePos != nil {
		return s.framePos[f]
	}
	return s.pos
}

// anatomy returns where the volume's samples lie in LPS patient
// coordinates: sample (x, y, z) is at P₀ + x·dx·r + y·dy·c + z·(Pₙ₋₁ − P₀)/(n−1),
// where r and c are ImageOrientationPatient's row and column direction
// cosines, dx and dy the column and row spacing, and P the positions of the
// planes in the order the volume presents them (DICOM's equation C.7.6.2.1-1
// for every plane of an evenly spaced series). One plane, or planes without
// a last position, step along the slice normal r × c by the Z spacing
// instead. Nil without an
// orientation or a first position.
func (v *volume) anatomy(dx, dy float64) *loader.Anatomy {
	s := v.slices[0]
	p0 := v.position(0)
	if s.orient == nil || p0 == nil {
		return nil
	}
	var aff [3][4]float64
	for r := range 3 {
		aff[r][0] = s.orient[r] * dx
		aff[r][1] = s.orient[3+r] * dy
		aff[r][3] = p0[r]
	}
	n := v.depth()
	if pn := v.position(n - 1); n > 1 && pn != nil {
		for r := range 3 {
			aff[r][2] = (pn[r] - p0[r]) / float64(n-1)
		}
	}
	if aff[0][2] == 0 && aff[1][2] == 0 && aff[2][2] == 0 {
		loader.CompleteZ(&aff)
		d, _ := v.zSpacing()
		for r := range 3 {
			aff[r][2] *= d
		}
	}
	if !loader.Finite(&aff) {
		return nil
	}
	return &loader.Anatomy{Affine: aff, Space: loader.SpaceLPS}
}
