package session

import (
	"fmt"
	"math"
	"slices"
	"time"

	"vastview/loader"
	"vastview/prefs"
	"vastview/render"
	"vastview/render/oblique"
	raycast "vastview/render/volume"
)

// View3D shows the volume in 3-D, alone in the viewport.
const View3D Layout = FourPanels + 1

// panel3D names the 3-D view in traces, as a panel.
const panel3D = "3d"

// view3dState is the 3-D view, a part of the session kept under its lock:
// whether it is shown alone, the camera, how the rays are cast and
// clipped, and whether the camera is moving (a drag in progress: frames at
// a reduced screen scale).
type view3dState struct {
	on      bool
	cam     Camera
	mode    raycast.Mode
	opacity float64 // Alpha's opacity, (0, 1]; 0 is 1
	iso     float64 // Iso's threshold, in stored values
	isoSet  bool    // false: the middle of the window
	clip    raycast.Box
	// clipOblique clips with the plane the 2-D view shows (turned or
	// not), keeping the far side.
	clipOblique bool
	moving      bool
	// handles draws the clip box over the 3-D view shown alone, a handle
	// at the middle of each face to drag; grab is the face a drag holds
	// (see faceGrab), from the box grabBox, the pointer having moved
	// grabMove samples along the face's axis since; dragging: a drag over
	// the 3-D view is under way.
	handles  bool
	dragging bool
	grab     faceGrab
	grabBox  raycast.Box
	grabMove float64
}

// Modes3D are the 3-D view's modes, in the order N steps through them.
var Modes3D = []raycast.Mode{raycast.MIP, raycast.MinIP, raycast.Mean, raycast.Alpha, raycast.Iso}

// ModeName3D names a 3-D mode as the menu does.
func ModeName3D(m raycast.Mode) string {
	switch m {
	case raycast.MIP:
		return "Maximum Intensity"
	case raycast.MinIP:
		return "Minimum Intensity"
	case raycast.Mean:
		return "Mean Intensity"
	case raycast.Alpha:
		return "Translucent"
	case raycast.Iso:
		return "Isosurface"
	}
	return m.String()
}

// volumeScene is what a Scene draws in 3-D: the camera and the options
// of its rays (the window, colormap and channels come from the view).
type volumeScene struct {
	cam    Camera
	opts   raycast.Options
	isoSet bool // opts.Iso was chosen; else the middle of the window
	moving bool
	budget int64 // the chunk cache's bytes: the finest level drawn fits in half
}

// Shows3D reports whether the 3-D view is shown, alone or as a panel of four.
func (s *Session) Shows3D() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v3.on || s.ortho.on
}

// can3D reports whether data m is a volume the 3-D view can show.
func can3D(m *loader.Meta) bool { return m.Size('Z') > 1 && m.Size('Y') > 1 && m.Size('X') > 1 }

// set3DLocked shows the 3-D view alone, or not; it reports whether that
// changed.
func (s *Session) set3DLocked(m *loader.Meta, on bool) bool {
	if on == s.v3.on || on && !can3D(m) {
		return false
	}
	s.v3.on, s.v3.moving = on, false
	s.hist.clear()
	return true
}

// Toggle3D shows the 3-D view alone, or one plane again.
func (s *Session) Toggle3D() {
	if s.Layout() == View3D {
		s.SetLayout(SingleView)
	} else {
		s.SetLayout(View3D)
	}
}

// Camera returns the 3-D view's camera.
func (s *Session) Camera() Camera {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v3.cam
}

// SetCamera sets the 3-D view's camera (one that is not a rotation, or
// not finite, is refused).
func (s *Session) SetCamera(c Camera) {
	if !c.valid() {
		return
	}
	s.update3D(func(*loader.Meta, int, int) { s.v3.cam = c })
}

// ResetCamera looks at the whole volume along Z again, as XY is seen
// (see frontCamera).
func (s *Session) ResetCamera() {
	s.update3D(func(m *loader.Meta, _, _ int) { s.v3.cam = frontCamera(m, s.conv) })
}

// Mode3D returns the 3-D view's mode.
func (s *Session) Mode3D() raycast.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v3.mode
}

// SetMode3D sets how the 3-D view's rays show the volume.
func (s *Session) SetMode3D(m raycast.Mode) {
	s.update3D(func(*loader.Meta, int, int) { s.v3.mode = m })
}

// CycleMode3D steps to the next 3-D mode: maximum, minimum, mean,
// translucent, isosurface.
func (s *Session) CycleMode3D() {
	s.update3D(func(*loader.Meta, int, int) {
		for i, m := range Modes3D {
			if m == s.v3.mode {
				s.v3.mode = Modes3D[(i+1)%len(Modes3D)]
				return
			}
		}
		s.v3.mode = Modes3D[0]
	})
}

// Opacity3D returns the translucent mode's opacity, (0, 1].
func (s *Session) Opacity3D() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !(s.v3.opacity > 0) {
		return 1
	}
	return s.v3.opacity
}

// SetOpacity3D sets the translucent mode's opacity, clamped to [0.01, 1].
func (s *Session) SetOpacity3D(a float64) {
	if math.IsNaN(a) {
		return
	}
	s.update3D(func(*loader.Meta, int, int) { s.v3.opacity = max(0.01, min(1, a)) })
}

// Iso3D returns the isosurface's threshold and whether one was chosen
// (else it is the middle of the window).
func (s *Session) Iso3D() (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v3.iso, s.v3.isoSet
}

// SetIso3D sets the isosurface's threshold, in stored values.
func (s *Session) SetIso3D(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	s.update3D(func(*loader.Meta, int, int) { s.v3.iso, s.v3.isoSet = v, true })
}

// Clip3D returns the clipping box (the zero Box: none) and whether the
// oblique plane clips.
func (s *Session) Clip3D() (raycast.Box, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v3.clip, s.v3.clipOblique
}

// SetClipBox crops the 3-D view to level-0 samples lo..hi−1 along Z, Y, X
// (clamped to the data; an empty or whole range on every axis clips
// nothing).
func (s *Session) SetClipBox(lo, hi [3]int) {
	s.update3D(func(m *loader.Meta, _, _ int) {
		n := oblique.Extent(m)
		var b raycast.Box
		whole := true
		for a := range n {
			b.Lo[a], b.Hi[a] = max(0, min(n[a], lo[a])), max(0, min(n[a], hi[a]))
			if b.Hi[a] <= b.Lo[a] {
				b.Lo[a], b.Hi[a] = 0, n[a]
			}
			whole = whole && b.Lo[a] == 0 && b.Hi[a] == n[a]
		}
		if whole {
			b = raycast.Box{}
		}
		s.v3.clip = b
	})
}

// ToggleClipPlane clips the 3-D view with the plane the 2-D view shows
// (XY, XZ, YZ or turned), keeping what lies beyond it, or stops.
func (s *Session) ToggleClipPlane() {
	s.update3D(func(*loader.Meta, int, int) { s.v3.clipOblique = !s.v3.clipOblique })
}

// update3D changes the 3-D view with f (handed the data and the 3-D
// view's size) and has it drawn if it is shown.
func (s *Session) update3D(f func(m *loader.Meta, w, h int)) {
	s.update(func(m *loader.Meta) bool {
		w, h := s.size3DLocked()
		f(m, w, h)
		return true
	})
}

// size3DLocked is the 3-D view's size in pixels: the viewport's, or the
// fourth panel's.
func (s *Session) size3DLocked() (w, h int) {
	if s.ortho.on {
		r := panelRects(s.ortho.w, s.ortho.h)[panelProj]
		return r.Dx(), r.Dy()
	}
	return s.view.Width, s.view.Height
}

// at3DLocked reports whether viewport position (x, y) is over the 3-D
// view, and the position in it.
func (s *Session) at3DLocked(x, y float64) (bool, float64, float64) {
	if s.v3.on {
		return true, x, y
	}
	if s.ortho.on {
		if i, px, py := s.ortho.panelAt(x, y); i == panelProj {
			return true, px, py
		}
	}
	return false, x, y
}

// drag3D follows a drag over the 3-D view to (x, y) of it by (dx, dy):
// it turns the volume as a trackball (Shift: pans); it reports whether
// the pointer was over the 3-D view.
func (s *Session) drag3D(x, y, dx, dy float64) bool {
	s.mu.Lock()
	on, px, py := s.at3DLocked(x, y)
	pan := s.mods.Shift
	s.mu.Unlock()
	if !on {
		return false
	}
	if s.grabFace(px, py, dx, dy) {
		return true
	}
	s.update3D(func(m *loader.Meta, w, h int) {
		s.v3.moving = true
		if pan {
			s.v3.cam = s.v3.cam.Panned(m, w, h, dx, dy)
		} else {
			s.v3.cam = s.v3.cam.Arcball(px-dx, py-dy, px, py, w, h)
		}
	})
	return true
}

// scroll3D zooms the 3-D view for a wheel turn dy over viewport position
// (x, y); it reports whether the pointer was over the 3-D view.
func (s *Session) scroll3D(x, y, dy float64) bool {
	s.mu.Lock()
	on, _, _ := s.at3DLocked(x, y)
	s.mu.Unlock()
	if !on {
		return false
	}
	s.update3D(func(*loader.Meta, int, int) { s.v3.cam = s.v3.cam.Zoomed(math.Pow(zoomStep, dy/10)) })
	return true
}

// end3DDrag ends a drag of the 3-D view: drawn coarse while its camera
// moved, it is refined.
func (s *Session) end3DDrag() {
	s.mu.Lock()
	moving := s.v3.moving
	s.v3.dragging, s.v3.grab = false, 0
	s.mu.Unlock()
	if moving {
		s.update3D(func(*loader.Meta, int, int) { s.v3.moving = false })
	}
}

// volumeSceneLocked is what the scene draws in 3-D, or nil when the 3-D
// view is not shown.
func (s *Session) volumeSceneLocked() *volumeScene {
	if s.data == nil || !(s.v3.on || s.ortho.on) || !can3D(s.data.Pyr.Meta()) {
		return nil
	}
	m := s.data.Pyr.Meta()
	vs := &volumeScene{cam: s.v3.cam, moving: s.v3.moving, isoSet: s.v3.isoSet, budget: s.prefs.CacheBytes()}
	vs.opts = raycast.Options{Mode: s.v3.mode, Opacity: s.v3.opacity, Iso: s.v3.iso, Clip: s.v3.clip}
	if s.view.Linear {
		vs.opts.Interp = oblique.Linear
	}
	if s.v3.clipOblique {
		v := s.view
		if !(v.Zoom > 0) {
			v.Width, v.Height = max(1, v.Width), max(1, v.Height)
			v.Zoom, v.Center = render.Fit(m, v)
		}
		pl := ObliquePlane(m, v)
		vs.opts.ClipPlane = &raycast.ClipPlane{Point: pl.Center, Normal: pl.U.Cross(pl.V)}
	}
	return vs
}

// Frame3D says how a frame of the 3-D view was drawn.
type Frame3D struct {
	// Mode is what the rays gave.
	Mode raycast.Mode
	// Args are the options of `vastview render` that draw the same
	// picture (camera, level, step, mode), when it was drawn at full
	// screen scale.
	Args []string
	// Scale is the screen scale: 1, or 1/2, 1/4 … while the camera moves.
	Scale float64
	// Took is how long the picture took to draw.
	Took time.Duration
	// Complete is true when the picture is final: at full screen scale,
	// from the finest level it is drawn from, every chunk in memory.
	Complete bool
}

// status3D is what the status bar says of a 3-D frame.
func status3D(f *Frame) string {
	v := f.Vol
	t := "3-D " + v.Mode.String()
	if v.Scale < 1 {
		t += fmt.Sprintf(", screen 1/%d (moving)", int(math.Round(1/v.Scale)))
	}
	return t
}

// save is the 3-D view as the preferences keep it (nil when it is as a
// file starts: nothing to remember).
func (v *view3dState) save() *prefs.View3D {
	if v.cam == (Camera{}) && v.mode == raycast.MIP && v.opacity == 0 && !v.isoSet && v.clip.IsZero() && !v.clipOblique {
		return nil
	}
	p := &prefs.View3D{Zoom: v.cam.Zoom, Mode: v.mode.String(), Opacity: v.opacity, Iso: v.iso, IsoSet: v.isoSet,
		ClipPlane: v.clipOblique}
	if v.cam.Turn != (render.Turn{}) {
		p.Turn = slices.Clone(v.cam.Turn[:])
	}
	if v.cam.Centered {
		p.Center = slices.Clone(v.cam.Center[:])
	}
	if !v.clip.IsZero() {
		p.Clip = append(slices.Clone(v.clip.Lo[:]), v.clip.Hi[:]...)
	}
	return p
}

// restore applies a remembered 3-D view of data m; what is not usable
// (a matrix that is no rotation, numbers that are not finite, a box
// outside the data) is left as a file starts.
func (v *view3dState) restore(p *prefs.View3D, m *loader.Meta) {
	if p == nil {
		return
	}
	c := Camera{Turn: rememberedTurn(p.Turn), Zoom: p.Zoom}
	if len(p.Center) == 3 {
		copy(c.Center[:], p.Center)
		c.Centered = true
	}
	if c.valid() {
		v.cam = c
	}
	if md, ok := raycast.ParseMode(p.Mode); ok {
		v.mode = md
	}
	if p.Opacity > 0 && p.Opacity <= 1 {
		v.opacity = p.Opacity
	}
	if !math.IsNaN(p.Iso) && !math.IsInf(p.Iso, 0) {
		v.iso, v.isoSet = p.Iso, p.IsoSet
	}
	v.clipOblique = p.ClipPlane
	if len(p.Clip) == 6 {
		n := oblique.Extent(m)
		var b raycast.Box
		for a := range n {
			b.Lo[a], b.Hi[a] = p.Clip[a], p.Clip[3+a]
			if b.Lo[a] < 0 || b.Hi[a] > n[a] || b.Hi[a] <= b.Lo[a] {
				return
			}
		}
		v.clip = b
	}
}

// over3DLocked reports whether the pointer is over the 3-D view, where
// no sample lies under it to read out.
func (s *Session) over3DLocked() bool {
	return s.v3.on || s.ortho.on && s.ortho.active == panelProj && s.data != nil && can3D(s.data.Pyr.Meta())
}

// orbitSteps is how many frames a movie of the 3-D view has: a whole
// turn, 2° a frame.
const orbitSteps = 180

// orbitLocked has movie mv of the 3-D view shown alone turn the camera a
// whole turn about the screen's vertical axis (see Camera.Orbit), each
// frame the 3-D view's picture at rest for that camera, as `vastview
// movie --render MODE --orbit 360` draws one.
func (s *Session) orbitLocked(mv *Movie) error {
	m := s.data.Pyr.Meta()
	vs := mv.sc.vol
	w, h := s.size3DLocked()
	frames := make([]oblique.Plane, orbitSteps)
	for i := range frames {
		frames[i] = vs.cam.Orbit(float64(i)*360/orbitSteps).Plane(m, w, h)
		frames[i].T, frames[i].C = s.view.T, s.view.C
	}
	k := max(oblique.ChooseLevel(m, frames[0]), budgetLevel(m, vs.budget, vs.opts.Clip))
	o := vs.opts
	o.Step = levelStep(m, k)
	if !vs.isoSet {
		o.Iso = math.NaN() // the middle of the window
	}
	mv.sc.vol = nil
	return mv.Orbit(frames, k, o)
}
