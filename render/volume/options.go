// Package volume renders a multi-resolution volume in 3-D by ray casting
// on the CPU: one ray per output sample of an oblique plane, cast along
// the plane's normal w, sampled at P + k·D·w for every integer k whose
// point lies inside the volume's box. The rays give the maximum, minimum
// or mean of their samples, a front-to-back composite through a window
// and colormap (translucent rendering) or the first sample at or above a
// threshold, shaded (isosurface).
//
// It draws what is in memory now and never waits for I/O: samples whose
// chunks are not cached come from coarser levels, as oblique planes do,
// and the chunks missing are listed (nearest the centre first) to be
// asked for.
//
// Positions are physical (index × spacing, vectors ordered Z, Y, X), as
// in package oblique.
package volume

import (
	"image"

	"vastview/levels"
	"vastview/render"
	"vastview/render/oblique"
)

// Mode is what a ray gives.
type Mode uint8

// The rendering modes.
const (
	// MIP is the maximum intensity projection: the largest sample.
	MIP Mode = iota
	// MinIP is the minimum intensity projection: the smallest sample.
	MinIP
	// Mean is the mean of the ray's samples.
	Mean
	// Alpha composites the samples front to back, the window being the
	// opacity ramp and the colormap the colour.
	Alpha
	// Iso shows the first sample at or above the threshold, shaded by the
	// gradient there (Lambert with ambient light, the light at the eye).
	Iso
)

var modeNames = [...]string{MIP: "mip", MinIP: "minip", Mean: "mean", Alpha: "alpha", Iso: "iso"}

// String is the mode's name, as `vastview render --mode` takes it.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "mode?"
}

// ParseMode reads "mip", "minip", "mean", "alpha" or "iso".
func ParseMode(s string) (Mode, bool) {
	for m, n := range modeNames {
		if n == s {
			return Mode(m), true
		}
	}
	return MIP, false
}

// Projects reports whether the mode gives one value per ray (MIP, MinIP,
// Mean), which Render writes; the others only make colours.
func (m Mode) Projects() bool { return m <= Mean }

// Box is a region of level-0 sample indices along Z, Y and X: samples
// Lo[a] up to Hi[a]−1, that is the points whose continuous index lies in
// [Lo[a]−0.5, Hi[a]−0.5]. The zero Box is the whole volume.
type Box struct {
	Lo, Hi [3]int
}

// IsZero reports whether b is the zero Box (the whole volume).
func (b Box) IsZero() bool { return b == Box{} }

// ClipPlane keeps the half of the volume that Normal points to from
// Point: the points x with (x − Point)·Normal ≥ 0. Both are physical.
type ClipPlane struct {
	Point, Normal oblique.Vec
}

// Options say how rays are cast and what they give.
type Options struct {
	// Mode is what each ray gives.
	Mode Mode
	// Step is the physical distance D between a ray's samples; 0 is the
	// smallest spacing of level 0.
	Step float64
	// Interp is how a sample between the data's samples is made.
	Interp oblique.Interp
	// Iso is the threshold of Iso mode, in stored values.
	Iso float64
	// Window is the display window in stored values: for Alpha, the
	// opacity ramp (transparent at Window[0] and below, most opaque at
	// Window[1] and above) and the colormap's range; for the projections'
	// and Iso's colours, the range the colormap spans. It is used when
	// RenderRGBA is given no channels.
	Window [2]float64
	// Colormap colours the picture when RenderRGBA is given no channels;
	// nil is gray.
	Colormap *render.Colormap
	// Opacity, in (0, 1], is Alpha's opacity of a sample at the top of
	// the ramp over one smallest spacing (samples at another Step are
	// corrected so that the picture does not depend on it); 0 is 1.
	Opacity float64
	// Clip keeps the samples inside the box; the zero Box keeps all.
	Clip Box
	// ClipPlane, when set, keeps the samples on the side its normal
	// points to.
	ClipPlane *ClipPlane
	// Labels are label volumes RenderRGBA draws with the image, as
	// opaque shaded surfaces (see Labels); Render leaves them out.
	Labels []Labels
}

// Info says how a picture was rendered.
type Info struct {
	// Level is the level asked for, the finest the picture shows.
	Level int
	// Complete is true when every chunk of that level the rays needed was
	// in memory.
	Complete bool
	// Missing counts the chunks of that level that were not (Missing
	// lists them).
	Missing int
	// Failed counts chunks that could not be read, and Err says why.
	Failed int
	Err    error
	// Samples counts the samples taken (for measuring speed), and
	// Skipped those not taken because their chunks' ranges said they
	// change nothing (empty-space skipping).
	Samples, Skipped int64
}

// add counts o's chunks and samples in i: complete when both are, the
// first error kept.
func (i *Info) add(o Info) {
	i.Complete = i.Complete && o.Complete
	i.Missing += o.Missing
	i.Failed += o.Failed
	i.Samples += o.Samples
	i.Skipped += o.Skipped
	if i.Err == nil {
		i.Err = o.Err
	}
}

// Caster is what a view needs of a 3-D renderer, so that another
// implementation (a GPU path) can stand in for Renderer.
type Caster interface {
	// Render writes one value per output sample of p into dst (W×H
	// float32, row-major) for the projection modes.
	Render(dst []float32, p oblique.Plane, src oblique.Source, level int, o Options) Info
	// RenderRGBA draws the picture of p into dst (its bounds W×H from the
	// origin), in every mode, composing chans (one channel of p.C in
	// o.Window and o.Colormap when there are none).
	RenderRGBA(dst *image.RGBA, p oblique.Plane, src oblique.Source, level int, o Options, chans []render.Channel) Info
	// Missing lists the chunks of the level last rendered that were not
	// in memory, nearest the centre of the picture first.
	Missing() (level int, idxs [][]int)
	// Request asks src for the chunks Missing lists.
	Request(src oblique.Source, prio levels.Priority, gen uint64)
	// Close releases the renderer's workers.
	Close()
}

var _ Caster = (*Renderer)(nil)
