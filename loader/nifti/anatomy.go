package nifti

import (
	"math"

	"vastview/loader"
)

// anatomy returns the header's voxel-to-world affine in scanner RAS+
// millimetres, chosen as nibabel's get_best_affine chooses it: the sform
// when sform_code is set, else the qform when qform_code is set; nil when
// neither is (the file then places its voxels nowhere) or the chosen one
// does not hold finite numbers. Lengths in metres or micrometres
// (xyzt_units) are converted to millimetres.
func (h *header) anatomy() *loader.Anatomy {
	var aff [3][4]float64
	switch {
	case h.sformCode != 0:
		aff = h.srow
	case h.qformCode != 0:
		var ok bool
		if aff, ok = h.qform(); !ok {
			return nil
		}
	default:
		return nil
	}
	mm := 1.0
	switch h.xyztUnits & 7 {
	case 1:
		mm = 1000
	case 3:
		mm = 1e-3
	}
	for r := range aff {
		for c := range aff[r] {
			aff[r][c] *= mm
			if math.IsNaN(aff[r][c]) || math.IsInf(aff[r][c], 0) {
				return nil
			}
		}
	}
	return &loader.Anatomy{Affine: aff, Space: loader.SpaceRAS}
}

// qform returns the affine of the header's quaternion, pixdim and qoffset,
// computed as nibabel's get_qform: w from b, c, d (0 when 1−(b²+c²+d²) is
// negative by no more than 3 float epsilons of the header's precision), the
// rotation times diag(|pixdim[1]|, |pixdim[2]|, qfac·|pixdim[3]|), where
// qfac is pixdim[0] when it is −1, else 1 (nibabel fixes any other value to
// 1 and takes pixdims' magnitudes when it loads a header). It reports false
// when the quaternion's vector part is longer than 1.
func (h *header) qform() ([3][4]float64, bool) {
	var out [3][4]float64
	b, c, d := h.quatern[0], h.quatern[1], h.quatern[2]
	eps := 0x1p-23 // float32
	if h.version == 2 {
		eps = 0x1p-52
	}
	var w float64
	if w2 := 1 - (b*b + c*c + d*d); w2 < 0 {
		if w2 < -3*eps {
			return out, false
		}
	} else {
		w = math.Sqrt(w2)
	}
	rot := quatToMat(w, b, c, d)
	vox := [3]float64{math.Abs(h.pixdim[1]), math.Abs(h.pixdim[2]), math.Abs(h.pixdim[3])}
	if h.pixdim[0] == -1 {
		vox[2] = -vox[2]
	}
	for r := range 3 {
		for k := range 3 {
			out[r][k] = rot[r][k] * vox[k]
		}
		out[r][3] = h.qoffset[r]
	}
	return out, true
}

// quatToMat is nibabel's quat2mat: the rotation of the quaternion (w, x,
// y, z), normalised; the identity for a quaternion of length near 0.
func quatToMat(w, x, y, z float64) [3][3]float64 {
	nq := w*w + x*x + y*y + z*z
	if nq < 0x1p-52 {
		return [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	}
	s := 2 / nq
	X, Y, Z := x*s, y*s, z*s
	wX, wY, wZ := w*X, w*Y, w*Z
	xX, xY, xZ := x*X, x*Y, x*Z
	yY, yZ, zZ := y*Y, y*Z, z*Z
	return [3][3]float64{
		{1 - (yY + zZ), xY - wZ, xZ + wY},
		{xY + wZ, 1 - (xX + zZ), yZ - wX},
		{xZ - wY, yZ + wX, 1 - (xX + yY)},
	}
}
