package session

import (
	"math"

	"vastview/loader"
	"vastview/render/oblique"
	raycast "vastview/render/volume"
)

// faceGrab names a face of the clip box: 1 + 2·axis (Z, Y, X) + side (0:
// the low face, 1: the high one); 0 is none.
type faceGrab int

// grabReach is how near, in pixels, a drag must start to a face's handle
// to move that face.
const grabReach = 10

// ClipHandles reports whether the clip box is drawn over the 3-D view
// with handles on its faces.
func (s *Session) ClipHandles() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v3.handles
}

// ToggleClipHandles draws the clip box (the whole volume when none is
// set) over the 3-D view shown alone, with a handle at the middle of each
// face: a drag that starts on one moves that face along its axis, cropping
// the volume; or stops drawing it.
func (s *Session) ToggleClipHandles() {
	s.mu.Lock()
	s.v3.handles = !s.v3.handles
	s.unlockNotify(ROIChanged | ViewChanged)
}

// boxLocked is the clip box of data m, the whole volume when none is set.
func (s *Session) boxLocked(m *loader.Meta) raycast.Box {
	if !s.v3.clip.IsZero() {
		return s.v3.clip
	}
	return raycast.Box{Hi: oblique.Extent(m)}
}

// clipViewLocked is the data and camera plane the clip box is drawn over,
// when its handles are shown (the 3-D view alone).
func (s *Session) clipViewLocked() (*loader.Meta, oblique.Plane, bool) {
	if !s.v3.handles || !s.v3.on || s.data == nil {
		return nil, oblique.Plane{}, false
	}
	m := s.data.Pyr.Meta()
	if !can3D(m) {
		return nil, oblique.Plane{}, false
	}
	w, h := s.size3DLocked()
	return m, s.v3.cam.Plane(m, max(1, w), max(1, h)), true
}

// toScreen is where physical point x lies in the viewport of plane p.
func toScreen(p oblique.Plane, x oblique.Vec) [2]float64 {
	d := x.Add(p.Center.Scale(-1))
	return [2]float64{d.Dot(p.U)/p.Pixel + float64(p.W)/2, d.Dot(p.V)/p.Pixel + float64(p.H)/2}
}

// boxPoint is the physical point of box b at fractions f (0: its low
// boundary, 1: its high one, along Z, Y, X) of data m.
func boxPoint(m *loader.Meta, b raycast.Box, f [3]float64) oblique.Vec {
	sp := oblique.Spacing(m)
	var x oblique.Vec
	for a := range x {
		lo, hi := float64(b.Lo[a])-0.5, float64(b.Hi[a])-0.5
		x[a] = (lo + f[a]*(hi-lo)) * sp[a]
	}
	return x
}

// faceCentre is the middle of face g of box b.
func faceCentre(m *loader.Meta, b raycast.Box, g faceGrab) oblique.Vec {
	f := [3]float64{0.5, 0.5, 0.5}
	a, side := int(g-1)/2, int(g-1)%2
	f[a] = float64(side)
	return boxPoint(m, b, f)
}

// clipMarkLocked is the clip box as the window draws it over the 3-D
// view: its twelve edges and a handle on each face, in viewport pixels.
func (s *Session) clipMarkLocked() (Mark, bool) {
	m, p, ok := s.clipViewLocked()
	if !ok {
		return Mark{}, false
	}
	b := s.boxLocked(m)
	var corner [8][2]float64
	for c := range corner {
		corner[c] = toScreen(p, boxPoint(m, b, [3]float64{float64(c >> 2 & 1), float64(c >> 1 & 1), float64(c & 1)}))
	}
	mk := Mark{Label: "clip box", Selected: s.v3.grab != 0}
	w, h := float64(p.W), float64(p.H)
	for c := range corner {
		for _, bit := range []int{1, 2, 4} {
			if c&bit == 0 {
				if sg, ok := clipSegment(corner[c], corner[c|bit], w, h); ok {
					mk.Segments = append(mk.Segments, sg)
				}
			}
		}
	}
	for g := faceGrab(1); g <= 6; g++ {
		if q := toScreen(p, faceCentre(m, b, g)); q[0] >= 0 && q[1] >= 0 && q[0] <= w && q[1] <= h {
			mk.Handles = append(mk.Handles, q)
		}
	}
	return mk, true
}

// faceAtLocked is the face whose handle lies within grabReach pixels of
// viewport position (x, y), the nearest, or 0.
func (s *Session) faceAtLocked(x, y float64) faceGrab {
	m, p, ok := s.clipViewLocked()
	if !ok {
		return 0
	}
	b := s.boxLocked(m)
	best, bestD := faceGrab(0), float64(grabReach*grabReach)
	for g := faceGrab(1); g <= 6; g++ {
		q := toScreen(p, faceCentre(m, b, g))
		if d := (q[0]-x)*(q[0]-x) + (q[1]-y)*(q[1]-y); d <= bestD {
			best, bestD = g, d
		}
	}
	return best
}

// grabFace follows a drag over the 3-D view at (x, y) by (dx, dy): the
// first step of a drag that starts on a face's handle grabs that face,
// and every step moves it along its axis by the pointer's motion along
// that axis on screen, in whole samples (at least one left between the
// faces). It reports whether a face is held.
func (s *Session) grabFace(x, y, dx, dy float64) bool {
	s.mu.Lock()
	if !s.v3.dragging {
		s.v3.dragging = true
		if g := s.faceAtLocked(x-dx, y-dy); g != 0 && s.data != nil {
			s.v3.grab, s.v3.grabBox, s.v3.grabMove = g, s.boxLocked(s.data.Pyr.Meta()), 0
		}
	}
	held := s.v3.grab != 0
	s.mu.Unlock()
	if !held {
		return false
	}
	s.update3D(func(m *loader.Meta, w, h int) {
		g := s.v3.grab
		if g == 0 {
			return
		}
		a, side := int(g-1)/2, int(g-1)%2
		p := s.v3.cam.Plane(m, max(1, w), max(1, h))
		sp := oblique.Spacing(m)
		// One sample along the axis moves the face this far on screen.
		ex, ey := sp[a]*p.U[a]/p.Pixel, sp[a]*p.V[a]/p.Pixel
		if l := ex*ex + ey*ey; l > 1e-4 {
			s.v3.grabMove += (dx*ex + dy*ey) / l
		}
		b := s.v3.grabBox
		n := oblique.Extent(m)
		step := int(math.Round(s.v3.grabMove))
		if side == 0 {
			b.Lo[a] = max(0, min(b.Hi[a]-1, b.Lo[a]+step))
		} else {
			b.Hi[a] = max(b.Lo[a]+1, min(n[a], b.Hi[a]+step))
		}
		if b == (raycast.Box{Hi: n}) {
			b = raycast.Box{}
		}
		s.v3.clip, s.v3.moving = b, true
	})
	return true
}
