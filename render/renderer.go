package render

import (
	"image"

	"vastview/levels"
	"vastview/loader"
)

// Source is the multi-resolution data a Renderer draws from; a
// *levels.Pyramid is one.
type Source interface {
	// Meta describes every level, level 0 first.
	Meta() *loader.Meta
	// Get returns a chunk if it is in memory now, else nil, without
	// blocking. The bytes are not modified by anyone afterwards.
	Get(level int, idx []int) []byte
	// Request asks for chunks to be loaded in the background, without
	// blocking; requests of an older generation may be dropped.
	Request(prio levels.Priority, gen uint64, level int, idxs ...[]int)
	// Failed returns why the last load of a chunk failed, if it did
	// lately (nil otherwise): such chunks are not asked for again.
	Failed(level int, idx []int) error
	// Stored is how many levels, from level 0, the source reads rather
	// than computes: drawing those needs no computation.
	Stored() int
	// Thumbnails is the first level of those built in the background
	// (every chunk cheap to get), or the number of levels while there are
	// none.
	Thumbnails() int
}

// Info says how a frame was drawn.
type Info struct {
	// Level is the level the zoom calls for, the finest the frame shows.
	Level int
	// Complete is true when every chunk of that level the viewport needs
	// was in memory: the frame will not improve.
	Complete bool
	// Missing counts the chunks of that level that were not, and have
	// been requested.
	Missing int
	// Unfilled counts the pixels over the data that no level in memory
	// could draw (shown in the background colour for now).
	Unfilled int
	// Failed counts the chunks of that level that could not be read (a
	// truncated file, a server error), and Err says why: the frame will
	// not improve until they are asked for again (see levels.Pyramid.Refresh).
	Failed int
	Err    error
}

// Settled reports whether the frame will not improve by waiting: every
// chunk it needs is in memory or could not be read.
func (i Info) Settled() bool { return i.Missing == 0 }

// background is the colour outside the data, and where no level has data
// in memory yet.
var background = [3]uint8{32, 32, 32}

// maxViewport bounds the viewport's width and height.
const maxViewport = 16384

// Renderer draws views of a Source. It keeps its buffers from frame to
// frame, so that drawing the same or a similar view again allocates
// nothing. It is not safe for concurrent use: use one per drawing
// goroutine. The zero value is ready to use.
type Renderer struct {
	bufs     [3]*image.RGBA // frames returned, in turn
	unfilled int            // pixels of the current frame no level could draw
	failed   int            // chunks of the frame's level that cannot be read
	failErr  error
	next     int
	bg       []byte // a row of background pixels
	none     []byte // a row of transparent pixels (0 as ids)

	// The colour tables of the current frame.
	lut     *[65536]uint8 // raw 8/16-bit value -> colormap entry
	lutKey  lutKey
	lutOK   bool
	pal     [256]uint32    // colormap entry -> pixel
	wide    [256]uint32    // colormap entry -> wide pixel (see widePalette)
	wlut    *[65536]uint32 // raw 16-bit value -> wide pixel (see prepareWide)
	wideKey lutKey
	wideOK  bool
	cm      *Colormap
	lo      float64
	span    float64

	// Chunks seen in this and the previous frame, so that a view drawn
	// again needs no look-ups in the pyramid (each of which allocates).
	meta      *loader.Meta
	src       Source
	cur, prev map[chunkKey][]byte
	scratch   []int

	f    frame
	lv   []levelState
	img  *image.RGBA
	miss []missingChunk
	reqs [][]int

	subs []Renderer // the channels of a composite (see renderComposite)
	rgb  [3]Channel // the channels of colour pixels (see channelsOf)
	add  bool       // draw by adding to the picture (a composite's later channels)
	row  []byte     // a row drawn before it is added
	data [][]byte   // the chunk of each channel of a composite (see compositeChunk)

	ids   bool // draw label ids instead of colours (RenderLabels)
	clear bool // transparent where no data (RenderLayer)

	collect bool      // gather values instead of drawing (ViewRange)
	step    int       // collect every step-th pixel along each axis
	vals    []float64 // values gathered
}

type lutKey struct {
	dt     loader.DType
	lo, hi float64
	cm     *Colormap
}

type chunkKey struct {
	level int32
	idx   [maxAxes]int32
}

type missingChunk struct {
	dist float64 // squared distance of its part of the viewport from the centre
	idx  [maxAxes]int
}

// Render draws view v of p into a viewport-sized image and says how
// complete it is (with colormap RGB, the three samples of colour pixels as
// one picture). It picks the coarsest level with at least one sample per
// screen pixel, draws what of that level is in memory now, fills the rest
// from coarser levels in memory (the background colour only where no level
// has data), and requests the missing chunks of that level at Visible
// priority for generation gen, those nearest the viewport's centre first.
// It never waits for I/O.
//
// The image belongs to the Renderer: it stays unchanged until two more
// Render calls have returned, then it is drawn over.
func (r *Renderer) Render(v View, p Source, gen uint64) (*image.RGBA, Info) {
	w, h := max(0, min(maxViewport, v.Width)), max(0, min(maxViewport, v.Height))
	v.Width, v.Height = w, h
	if chans := r.channelsOf(v, p.Meta()); chans != nil {
		return r.renderComposite(v, chans, p, gen)
	}
	img := r.target(w, h)
	info := r.drawInto(img, v, p, false)
	r.request(p, gen, r.f.level, len(p.Meta().Axes))
	return img, info
}

// drawInto draws view v of p, of one channel, into img (the viewport's
// size), adding to what img holds if add is set, and notes the missing
// chunks of the frame's level in r.miss.
func (r *Renderer) drawInto(img *image.RGBA, v View, p Source, add bool) Info {
	r.start(img, v, p, add)
	r.fill(r.f.level, 0, v.Width, 0, v.Height)
	return r.info()
}

// start readies the renderer to draw view v of p, of one channel, into
// img, adding to what img holds if add is set.
func (r *Renderer) start(img *image.RGBA, v View, p Source, add bool) {
	r.img, r.add = img, add
	r.background(v.Width)
	r.begin(v, p)
	r.prepareColours(p.Meta().DType, v.Lo, v.Hi, ColormapOrGray(v.Colormap))
	r.collect = false
	r.miss = r.miss[:0]
	r.unfilled, r.failed, r.failErr = 0, 0, nil
}

// info says how the frame drawn since start came out.
func (r *Renderer) info() Info {
	return Info{Level: r.f.level, Missing: len(r.miss), Complete: len(r.miss) == 0 && r.failed == 0,
		Unfilled: r.unfilled, Failed: r.failed, Err: r.failErr}
}

// target returns the next buffer in turn, sized w×h.
func (r *Renderer) target(w, h int) *image.RGBA {
	r.next = (r.next + 1) % len(r.bufs)
	b := r.bufs[r.next]
	if b == nil || b.Rect.Dx() != w || b.Rect.Dy() != h {
		b = image.NewRGBA(image.Rect(0, 0, w, h))
		r.bufs[r.next] = b
	}
	r.background(w)
	return b
}

// background readies a row of w background pixels, and one to draw into.
func (r *Renderer) background(w int) {
	if len(r.bg) < 4*w {
		r.bg = make([]byte, 4*w)
		for i := 0; i < w; i++ {
			r.bg[4*i], r.bg[4*i+1], r.bg[4*i+2], r.bg[4*i+3] = background[0], background[1], background[2], 255
		}
		r.row = make([]byte, 4*w)
		r.none = make([]byte, 4*w)
	}
}

// Forget drops the chunks the renderer remembers from recent frames, so
// that the next frame asks the source for every chunk again (after the
// source replaced placeholders, see levels.Pyramid.Refresh).
func (r *Renderer) Forget() {
	clear(r.cur)
	clear(r.prev)
	for i := range r.subs {
		r.subs[i].Forget()
	}
}

// begin sets up the frame's geometry and turns over the chunk memo.
func (r *Renderer) begin(v View, p Source) {
	m := p.Meta()
	if r.cur == nil {
		r.cur, r.prev = map[chunkKey][]byte{}, map[chunkKey][]byte{}
	}
	if m != r.meta {
		clear(r.cur)
		clear(r.prev)
		r.meta = m
	}
	r.src = p
	r.prev, r.cur = r.cur, r.prev
	clear(r.cur)
	r.setup(v, m)
}

// setup works out the frame's geometry; levels are mapped when first used.
func (r *Renderer) setup(v View, m *loader.Meta) {
	r.f = newFrame(v, m)
	if len(r.lv) < len(m.Levels) {
		r.lv = make([]levelState, len(m.Levels))
	}
	for k := range r.lv {
		r.lv[k].ready = false
	}
	if len(r.scratch) < len(m.Axes) {
		r.scratch = make([]int, maxAxes)
	}
}

// level returns the frame's mapping onto level k.
func (r *Renderer) level(k int) *levelState {
	ls := &r.lv[k]
	if !ls.ready {
		ls.prepare(&r.f, k)
	}
	return ls
}

// chunk returns chunk idx of level k if it is in memory, else nil.
func (r *Renderer) chunk(k int, idx *[maxAxes]int, bytes int) []byte {
	n := len(r.f.m.Axes)
	key := chunkKey{level: int32(k)}
	for i := 0; i < n; i++ {
		key.idx[i] = int32(idx[i])
	}
	if d, ok := r.cur[key]; ok {
		return d
	}
	if d, ok := r.prev[key]; ok {
		r.cur[key] = d
		return d
	}
	s := r.scratch[:n]
	copy(s, idx[:n])
	d := r.src.Get(k, s)
	if len(d) < bytes {
		return nil
	}
	r.cur[key] = d
	return d
}

// failure returns why chunk idx of level k could not be read, if it
// could not.
func (r *Renderer) failure(k int, idx *[maxAxes]int) error {
	s := r.scratch[:len(r.f.m.Axes)]
	copy(s, idx[:len(s)])
	return r.src.Failed(k, s)
}

// prepareColours readies the colour tables for dtype dt, window [lo, hi]
// and colormap cm; the 8/16-bit table is rebuilt only when one changes.
func (r *Renderer) prepareColours(dt loader.DType, lo, hi float64, cm *Colormap) {
	r.cm, r.lo, r.span = cm, lo, hi-lo
	palette(&r.pal, cm)
	widePalette(&r.wide, cm)
	if dt.Size() > 2 {
		return
	}
	key := lutKey{dt, lo, hi, cm}
	if r.lutOK && r.lutKey == key {
		return
	}
	if r.lut == nil {
		r.lut = new([65536]uint8)
	}
	fillLUT(r.lut[:1<<(8*dt.Size())], dt, lo, hi, cm)
	r.lutKey, r.lutOK = key, true
}

// request asks for the missing chunks noted in r.miss, of level k of data
// with n axes, nearest the viewport's centre first.
func (r *Renderer) request(p Source, gen uint64, k, n int) {
	if len(r.miss) == 0 {
		return
	}
	ms := r.miss
	for i := 1; i < len(ms); i++ { // insertion sort: few, and no allocation
		for j := i; j > 0 && ms[j].dist < ms[j-1].dist; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
	r.reqs = r.reqs[:0]
	for i := range ms {
		r.reqs = append(r.reqs, ms[i].idx[:n])
	}
	p.Request(levels.Visible, gen, k, r.reqs...)
}
