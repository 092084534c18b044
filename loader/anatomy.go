package loader

import "math"

// World frames an Anatomy's coordinates may be in (Anatomy.Space). The
// three letters name the anatomical direction toward which the world's
// first, second and third coordinates increase.
const (
	// SpaceRAS is NIfTI's scanner frame (RAS+): x toward the patient's
	// right, y anterior, z superior.
	SpaceRAS = "RAS"
	// SpaceLPS is DICOM's patient frame (LPS+, also NRRD's and ITK's):
	// x toward the patient's left, y posterior, z superior.
	SpaceLPS = "LPS"
)

// Anatomy is where a volume's samples lie in the patient: the file's
// index-to-world affine. It is distinct from the plane kind a view shows
// (XY, XZ, YZ). Its methods are safe for concurrent use; the value must not
// be modified once a Source has returned it.
type Anatomy struct {
	// Affine maps a level-0 sample index (x, y, z) (positions along the
	// X, Y and Z axes; z is 0 for 2-D data) to world millimetres:
	// world[r] = Affine[r][0]*x + Affine[r][1]*y + Affine[r][2]*z + Affine[r][3].
	Affine [3][4]float64
	// Space is the world frame Affine maps into, SpaceRAS or SpaceLPS:
	// what the file's users expect to read coordinates in (scanner RAS for
	// NIfTI; LPS patient coordinates for DICOM, NRRD, MetaImage).
	Space string
}

// World maps the level-0 sample index (x, y, z) to world millimetres in
// a.Space.
func (a *Anatomy) World(x, y, z float64) [3]float64 {
	var w [3]float64
	for r := range 3 {
		m := a.Affine[r]
		w[r] = m[0]*x + m[1]*y + m[2]*z + m[3]
	}
	return w
}

// In returns the same anatomy with its world coordinates in space
// (SpaceRAS or SpaceLPS): RAS and LPS differ by the sign of their first two
// coordinates.
func (a *Anatomy) In(space string) *Anatomy {
	b := *a
	if space == a.Space || (space != SpaceRAS && space != SpaceLPS) {
		return &b
	}
	for r := range 2 {
		for c := range 4 {
			b.Affine[r][c] = -b.Affine[r][c]
		}
	}
	b.Space = space
	return &b
}

// AxisDir is where one sample axis points in the world: the world axis
// (0, 1, 2) closest to it, and whether the axis runs against that world
// axis's positive direction.
type AxisDir struct {
	World int
	Flip  bool
}

// Dirs returns, for the sample axes X, Y and Z, the closest world axis
// and its sense, as nibabel's io_orientation: the shears and zooms are
// removed by the polar decomposition of the affine's linear part, then each
// sample axis in turn takes the world axis it moves along most that no
// earlier axis took. An axis the affine does not move (a zero column) gets
// World -1.
func (a *Anatomy) Dirs() [3]AxisDir {
	var rs [3][3]float64
	for c := range 3 {
		n := math.Sqrt(a.Affine[0][c]*a.Affine[0][c] + a.Affine[1][c]*a.Affine[1][c] + a.Affine[2][c]*a.Affine[2][c])
		if n == 0 {
			n = 1
		}
		for r := range 3 {
			rs[r][c] = a.Affine[r][c] / n
		}
	}
	rot := polar(rs)
	var d [3]AxisDir
	for in := range 3 {
		best, bv, zero := -1, 0.0, true
		for r := range 3 {
			v := rot[r][in]
			if math.Abs(v) > 1e-8 {
				zero = false
			}
			if best < 0 || math.Abs(v) > math.Abs(bv) {
				best, bv = r, v
			}
		}
		if zero || bv == 0 {
			d[in] = AxisDir{World: -1}
			continue
		}
		d[in] = AxisDir{World: best, Flip: bv < 0}
		for c := range 3 {
			rot[best][c] = 0
		}
	}
	return d
}

// Codes returns three letters, the anatomical direction (R or L, A or P,
// S or I) toward which the sample axes X, Y and Z increase, as nibabel's
// aff2axcodes; '?' for an axis the affine does not move.
func (a *Anatomy) Codes() string {
	pos, neg := spaceLetters(a.Space)
	out := make([]byte, 3)
	for i, d := range a.Dirs() {
		switch {
		case d.World < 0:
			out[i] = '?'
		case d.Flip:
			out[i] = neg[d.World]
		default:
			out[i] = pos[d.World]
		}
	}
	return string(out)
}

// spaceLetters returns the letters of the positive and negative directions
// of space's three world axes.
func spaceLetters(space string) (pos, neg string) {
	if space == SpaceLPS {
		return "LPS", "RAI"
	}
	return "RAS", "LPI"
}

// Obliquity returns, per world axis, the angle in radians between it and
// the sample axis closest to it, as nibabel's affines.obliquity: 0 for
// every axis of a volume stored along the scanner axes.
func (a *Anatomy) Obliquity() [3]float64 {
	var vs [3]float64
	for c := range 3 {
		vs[c] = math.Sqrt(a.Affine[0][c]*a.Affine[0][c] + a.Affine[1][c]*a.Affine[1][c] + a.Affine[2][c]*a.Affine[2][c])
	}
	var o [3]float64
	for r := range 3 {
		best := 0.0
		for c := range 3 {
			if vs[c] > 0 {
				best = math.Max(best, math.Abs(a.Affine[r][c]/vs[c]))
			}
		}
		o[r] = math.Acos(math.Min(best, 1))
	}
	return o
}

// obliqueTolerance is the largest angle, in radians, between a sample
// axis and its world axis that still counts as along it (about 0.001°,
// below what float32 headers resolve in a rotation).
const obliqueTolerance = 2e-5

// Oblique reports whether the sample axes are turned away from the world
// axes (more than about 0.001° on any axis): such a volume shown along its
// sample axes is shown on the closest world axes (Dirs), not exactly.
func (a *Anatomy) Oblique() bool {
	for _, v := range a.Obliquity() {
		if v > obliqueTolerance {
			return true
		}
	}
	return false
}

// polar returns the orthogonal factor of m's polar decomposition (U·Vᵀ
// from the singular value decomposition m = U·S·Vᵀ, keeping only the
// singular values above the rank tolerance numpy's matrix_rank uses), as
// nibabel's io_orientation computes it.
func polar(m [3][3]float64) [3][3]float64 {
	// One-sided Jacobi: rotate pairs of columns of a = m·V until they are
	// orthogonal; then a's columns are U·S and V holds the right vectors.
	a := m
	v := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for sweep := 0; sweep < 60; sweep++ {
		done := true
		for p := 0; p < 2; p++ {
			for q := p + 1; q < 3; q++ {
				var alpha, beta, gamma float64
				for r := range 3 {
					alpha += a[r][p] * a[r][p]
					beta += a[r][q] * a[r][q]
					gamma += a[r][p] * a[r][q]
				}
				if gamma == 0 || math.Abs(gamma) <= 1e-15*math.Sqrt(alpha*beta) {
					continue
				}
				done = false
				zeta := (beta - alpha) / (2 * gamma)
				t := math.Copysign(1, zeta) / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
				c := 1 / math.Sqrt(1+t*t)
				s := c * t
				for r := range 3 {
					ap, aq := a[r][p], a[r][q]
					a[r][p], a[r][q] = c*ap-s*aq, s*ap+c*aq
					vp, vq := v[r][p], v[r][q]
					v[r][p], v[r][q] = c*vp-s*vq, s*vp+c*vq
				}
			}
		}
		if done {
			break
		}
	}
	var sv [3]float64
	smax := 0.0
	for c := range 3 {
		sv[c] = math.Sqrt(a[0][c]*a[0][c] + a[1][c]*a[1][c] + a[2][c]*a[2][c])
		smax = math.Max(smax, sv[c])
	}
	tol := smax * 3 * 0x1p-52
	var out [3][3]float64
	for k := range 3 {
		if sv[k] <= tol {
			continue
		}
		for r := range 3 {
			for c := range 3 {
				out[r][c] += a[r][k] / sv[k] * v[c][k]
			}
		}
	}
	return out
}

// CompleteZ sets a zero third column of aff (a 2-D image, or a file that
// gives no direction for Z) to the unit normal of the first two columns,
// their cross product normalised, as DICOM's slice normal: the image then
// has a through-plane direction and codes for all three axes.
func CompleteZ(aff *[3][4]float64) {
	if aff[0][2] != 0 || aff[1][2] != 0 || aff[2][2] != 0 {
		return
	}
	u := [3]float64{aff[0][0], aff[1][0], aff[2][0]}
	v := [3]float64{aff[0][1], aff[1][1], aff[2][1]}
	n := [3]float64{u[1]*v[2] - u[2]*v[1], u[2]*v[0] - u[0]*v[2], u[0]*v[1] - u[1]*v[0]}
	l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
	if l == 0 || math.IsInf(l, 0) || math.IsNaN(l) {
		return
	}
	for r := range 3 {
		aff[r][2] = n[r] / l
	}
}

// Finite reports whether every entry of aff is a finite number.
func Finite(aff *[3][4]float64) bool {
	for _, row := range aff {
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// LevelAnatomy returns m's anatomy for the sample indices of stored level
// k: sample (x, y, z) of level k lies where level 0's index
// ((T_k − T_0)/S_0 + x·S_k/S_0, ...) does, from the levels' Scale (S) and
// Translation (T) on the X, Y and Z axes. Nil when m has no anatomy or no
// such level.
func (m *Meta) LevelAnatomy(k int) *Anatomy {
	if m.Anatomy == nil || k < 0 || k >= len(m.Levels) {
		return nil
	}
	a := *m.Anatomy
	l0, lk := &m.Levels[0], &m.Levels[k]
	for c, letter := range []byte("XYZ") {
		i := m.AxisIndex(letter)
		if i < 0 || l0.Scale[i] == 0 {
			continue
		}
		f := lk.Scale[i] / l0.Scale[i]
		o := (lk.Translation[i] - l0.Translation[i]) / l0.Scale[i]
		for r := range 3 {
			a.Affine[r][3] += m.Anatomy.Affine[r][c] * o
			a.Affine[r][c] = m.Anatomy.Affine[r][c] * f
		}
	}
	return &a
}
