package session

import (
	"fmt"
	"image"
	"math"
	"strconv"
	"strings"

	"vastview/loader"
	"vastview/render"
)

// Convention is how the planes of a volume with an anatomical orientation
// are laid on the screen.
type Convention uint8

// The conventions.
const (
	// Radiological is ITK-SNAP's (and every PACS viewer's): axial with the
	// patient's right at the screen's left and anterior up, coronal with
	// right at left and superior up, sagittal with anterior at left and
	// superior up.
	Radiological Convention = iota
	// Neurological is Radiological with the patient's right at the
	// screen's right (FSLeyes' default).
	Neurological
	// StorageOrder draws the planes as stored: columns left to right, rows
	// top to bottom (`plane --orient storage`).
	StorageOrder
)

var conventionNames = [...]string{Radiological: "radiological", Neurological: "neurological", StorageOrder: "storage"}

// String is the convention's name: "radiological", "neurological" or
// "storage".
func (c Convention) String() string {
	if int(c) < len(conventionNames) {
		return conventionNames[c]
	}
	return fmt.Sprintf("Convention(%d)", c)
}

// ParseConvention reads a convention's name ("" is radiological).
func ParseConvention(s string) (Convention, error) {
	if s == "" {
		return Radiological, nil
	}
	for c, n := range conventionNames {
		if strings.EqualFold(s, n) {
			return Convention(c), nil
		}
	}
	return Radiological, fmt.Errorf("unknown orientation %q (want radiological, neurological or storage)", s)
}

// anatomy is what the display needs of a volume's anatomical frame.
type anatomy struct {
	// codes are the directions (R, L, A, P, S or I) toward which the X, Y
	// and Z indices increase: the closest of the world's axes.
	codes [3]byte
	// affine maps a level-0 index (x, y, z, 1) to world coordinates in
	// millimetres; space names them ("RAS", "LPS").
	affine [3][4]float64
	space  string
	// oblique is true when the index axes are not the world's.
	oblique bool
}

// opposite is the direction opposite to code ('R' for 'L').
func opposite(code byte) byte {
	switch code {
	case 'R':
		return 'L'
	case 'L':
		return 'R'
	case 'A':
		return 'P'
	case 'P':
		return 'A'
	case 'S':
		return 'I'
	case 'I':
		return 'S'
	}
	return code
}

// axisCode is the direction toward which index axis a ('X', 'Y' or 'Z')
// increases, 0 for another.
func (an *anatomy) axisCode(a byte) byte {
	if i := strings.IndexByte("XYZ", a); i >= 0 {
		return an.codes[i]
	}
	return 0
}

// toward is the direction the convention has a screen axis point to
// (right for across, down for down) when it shows the anatomical axis of
// code.
func toward(code byte, c Convention, across bool) byte {
	switch code {
	case 'R', 'L':
		if across && c == Neurological {
			return 'R'
		}
		return 'L'
	case 'A', 'P':
		return 'P'
	case 'S', 'I':
		return 'I'
	}
	return code
}

// across reports whether the convention lays the anatomical axis of
// code across the screen in a plane whose other axis is that of other:
// right–left always (axial, coronal), anterior–posterior beside
// superior–inferior (sagittal).
func across(code, other byte) bool {
	switch code {
	case 'R', 'L':
		return true
	case 'A', 'P':
		return other == 'S' || other == 'I'
	}
	return false
}

// flips is the display transform of each plane in convention c: a plane
// is swapped when its row axis is the one the convention lays across the
// screen (a volume acquired sagittally or coronally), and an axis is
// flipped when it runs against the direction the convention gives its
// screen axis.
func (an *anatomy) flips(c Convention) (f [3]render.Flip) {
	if c == StorageOrder {
		return f
	}
	for _, o := range []render.Orientation{render.XY, render.XZ, render.YZ} {
		row, col, _ := o.Axes()
		cc, rc := an.axisCode(col), an.axisCode(row)
		swap := !across(cc, rc) && across(rc, cc)
		f[o] = render.Flip{Col: cc != toward(cc, c, !swap), Row: rc != toward(rc, c, swap), Swap: swap}
	}
	return f
}

// edges are the letters at the edges of a picture of view v: the
// direction each screen axis points to at its far edge (right, bottom),
// the opposite at the near one. A turned plane has none.
func (an *anatomy) edges(v render.View) render.Edges {
	if v.Turn != (render.Turn{}) && v.Turn != an.worldTurn() || !v.Orientation.Valid() {
		return render.Edges{} // turned by hand: no anatomical direction is along the screen
	}
	row, col, _ := v.Orientation.Axes()
	f := v.Flip()
	right, down := an.axisCode(col), an.axisCode(row)
	if f.Col {
		right = opposite(right)
	}
	if f.Row {
		down = opposite(down)
	}
	if f.Swap {
		right, down = down, right
	}
	letter := func(c byte) string {
		if c == 0 {
			return ""
		}
		return string(c)
	}
	return render.Edges{Left: letter(opposite(right)), Right: letter(right), Top: letter(opposite(down)), Bottom: letter(down)}
}

// planeName is the anatomical name of plane o: "axial" when its normal is
// the inferior–superior axis, "coronal" for the anterior–posterior one,
// "sagittal" for the right–left one.
func (an *anatomy) planeName(o render.Orientation) string {
	_, _, normal := o.Axes()
	switch an.axisCode(normal) {
	case 'S', 'I':
		return "axial"
	case 'A', 'P':
		return "coronal"
	case 'R', 'L':
		return "sagittal"
	}
	return ""
}

// world is the world position of level-0 index (x, y, z).
func (an *anatomy) world(x, y, z float64) (w [3]float64) {
	for i := range w {
		r := an.affine[i]
		w[i] = r[0]*x + r[1]*y + r[2]*z + r[3]
	}
	return w
}

// Flips is the display transform of the planes of m in convention c
// (none for data without an anatomical orientation): what a view of m
// holds in render.View.Flips.
func Flips(m *loader.Meta, c Convention) [3]render.Flip {
	an, ok := anatomyOf(m)
	if !ok {
		return [3]render.Flip{}
	}
	return an.flips(c)
}

// PlaneName is the anatomical name of plane o of m ("axial", "coronal",
// "sagittal"), or "" for data without an anatomical orientation.
func PlaneName(m *loader.Meta, o render.Orientation) string {
	an, ok := anatomyOf(m)
	if !ok {
		return ""
	}
	return an.planeName(o)
}

// drawEdges writes the orientation letters of view v of m at the edges
// of img, for data with an anatomical orientation.
func drawEdges(img *image.RGBA, m *loader.Meta, v render.View) {
	if an, ok := anatomyOf(m); ok {
		render.DrawEdges(img, an.edges(v))
	}
}

// anatomical reports whether view v of m shows an anatomical plane, laid
// out as the display convention says (letters at its edges): data with
// an anatomical orientation, its plane not turned by hand.
func anatomical(m *loader.Meta, v render.View) bool {
	an, ok := anatomyOf(m)
	return ok && an.edges(v) != (render.Edges{})
}

// anatomyOf is the anatomical frame of m, when the file gives one.
func anatomyOf(m *loader.Meta) (anatomy, bool) {
	a := m.Anatomy
	if a == nil || m.AxisIndex('Z') < 0 && m.AxisIndex('Y') < 0 {
		return anatomy{}, false
	}
	codes := a.Codes()
	an := anatomy{affine: a.Affine, space: a.Space, oblique: a.Oblique()}
	for i := range an.codes {
		if codes[i] == '?' {
			return anatomy{}, false
		}
		an.codes[i] = codes[i]
	}
	return an, true
}

// Convention is how volumes with an anatomical orientation are shown.
func (s *Session) Convention() Convention {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conv
}

// SetConvention shows volumes with an anatomical orientation in
// convention c (Radiological or Neurological), remembered in the
// preferences.
func (s *Session) SetConvention(c Convention) {
	if c != Radiological && c != Neurological {
		return
	}
	s.prefs.SetDisplayConvention(map[Convention]string{Neurological: "neurological"}[c])
	s.mu.Lock()
	changed := s.conv != c
	s.conv = c
	s.mu.Unlock()
	if changed {
		s.update(func(m *loader.Meta) bool { s.view.Flips = Flips(m, c); return true })
	}
}

// anatomyNote is what the status bar says of view v of m's anatomy: the
// plane's anatomical name, and for an affine oblique to the scanner's
// axes that it is shown on the closest ones; "" for data without one.
func anatomyNote(m *loader.Meta, v render.View) string {
	an, ok := anatomyOf(m)
	if !ok {
		return ""
	}
	note := an.planeName(v.Orientation)
	switch {
	case an.oblique && v.Turn == an.worldTurn():
		note += " (world space: resampled along the scanner axes)"
	case v.Turn != (render.Turn{}):
		note = ""
	case an.oblique:
		note += " (oblique to the scanner axes: shown on the closest ones; View → World Space resamples)"
	}
	return note
}

// worldText writes the world position of level-0 index idx (x, y, z),
// labelled with its space: "RAS -12.5, 40.25, 7 mm" (four decimals at
// most).
func (an *anatomy) worldText(idx [3]int) string {
	w := an.world(float64(idx[0]), float64(idx[1]), float64(idx[2]))
	mm := func(v float64) string {
		s := strconv.FormatFloat(v, 'f', 4, 64)
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		if s == "-0" {
			s = "0"
		}
		return s
	}
	return fmt.Sprintf("%s %s, %s, %s mm", an.space, mm(w[0]), mm(w[1]), mm(w[2]))
}

// worldAxis is the world axis (0, 1, 2 of space) along which direction
// code points, and its sense (+1 or -1).
func worldAxis(code byte, space string) (axis int, sense float64) {
	letters := "RAS"
	if space == loader.SpaceLPS {
		letters = "LPS"
	}
	if i := strings.IndexByte(letters, code); i >= 0 {
		return i, 1
	}
	return strings.IndexByte(letters, opposite(code)), -1
}

// worldTurn is the turn that lays every plane of the volume along the
// world's axes (World Space): it takes each index axis, in physical space
// (index × spacing), to the direction of the world axis closest to it, so
// that an oblique volume is resampled on the scanner's axes; the zero Turn
// for a volume stored along them.
func (an *anatomy) worldTurn() render.Turn {
	if !an.oblique {
		return render.Turn{}
	}
	// r: the affine's columns (the index axes X, Y, Z in the world),
	// normalised: world = r · physical.
	var r [3][3]float64
	for c := range 3 {
		n := math.Sqrt(an.affine[0][c]*an.affine[0][c] + an.affine[1][c]*an.affine[1][c] + an.affine[2][c]*an.affine[2][c])
		if !(n > 0) {
			return render.Turn{}
		}
		for w := range 3 {
			r[w][c] = an.affine[w][c] / n
		}
	}
	// T e_a = rᵀ (s_a e_w(a)): column a of T is s_a times row w(a) of r;
	// then in the Z, Y, X order of a Turn (index 2 − i).
	var t [3][3]float64
	for a := range 3 {
		w, sense := worldAxis(an.codes[a], an.space)
		if w < 0 {
			return render.Turn{}
		}
		for b := range 3 {
			t[2-b][2-a] = sense * r[w][b]
		}
	}
	return render.TurnOf(t)
}

// WorldSpace reports whether the view shows an oblique volume resampled
// along the world's axes (View → World Space).
func (s *Session) WorldSpace() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return false
	}
	an, ok := anatomyOf(s.data.Pyr.Meta())
	return ok && an.oblique && s.view.Turn == an.worldTurn()
}

// SetWorldSpace resamples an oblique volume along the world's axes
// (through the oblique planes' sampler, as FSLeyes' display space does),
// or shows it on its own axes again (the closest world axes).
func (s *Session) SetWorldSpace(on bool) {
	s.update(func(m *loader.Meta) bool {
		an, ok := anatomyOf(m)
		if !ok || !an.oblique {
			return false
		}
		t := render.Turn{}
		if on {
			t = an.worldTurn()
		}
		if s.view.Turn == t {
			return false
		}
		s.view.Turn = t
		s.hist.clear()
		return true
	})
}

// alignedTurn is the turn of a plane aligned again from turn t of data
// m: the world space's for a view in World Space, else none.
func alignedTurn(m *loader.Meta, t render.Turn) render.Turn {
	if an, ok := anatomyOf(m); ok && an.oblique && t == an.worldTurn() {
		return t
	}
	return render.Turn{}
}
