package session

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"

	"vastview/base/fsutil"
	"vastview/loader"
	"vastview/render"
)

// ThumbSize is the longer side of a thumbnail, in pixels.
const ThumbSize = 96

// maxThumbPlane bounds the plane a thumbnail is made from: larger planes
// without a stored coarse level get none (their file shows its name only).
const maxThumbPlane = 64 << 20

// thumbnails is the thumbnails part: the thumbnails of the browsing list
// made so far, whether the worker making the others runs, and what it
// waits on while a key is held or a movie plays. Its state is the
// session's, under the session's lock; it is handed the list, the place
// in it and whether the keys and playback rest. It opens files with open
// and keeps thumbnails under root (set once, read without the lock).
type thumbnails struct {
	imgs    map[string]*image.RGBA // by path
	running bool
	idle    chan struct{} // closed when scrubbing and playback end

	open func(ctx context.Context, path string) (loader.Source, error)
	root string // the disk cache's folder (see Options.DiskRoot)
}

// get is the thumbnail of path, if made yet (nil: none can be made).
func (t *thumbnails) get(path string) (*image.RGBA, bool) {
	img, ok := t.imgs[path]
	return img, ok
}

// put keeps the thumbnail of path (nil: none can be made).
func (t *thumbnails) put(path string, img *image.RGBA) {
	if t.imgs == nil {
		t.imgs = map[string]*image.RGBA{}
	}
	t.imgs[path] = img
}

// next is the entry of list nearest pos without a thumbnail; false when
// all have one, and the worker is then no longer running.
func (t *thumbnails) next(list []Entry, pos int) (string, bool) {
	pos = max(0, pos)
	for d := 0; d < len(list); d++ {
		for _, i := range []int{pos + d, pos - d} {
			if i < 0 || i >= len(list) || list[i].Err != nil {
				continue
			}
			if _, done := t.imgs[list[i].Path]; !done {
				return list[i].Path, true
			}
		}
	}
	t.running = false
	return "", false
}

// waiting is the channel closed when the keys and playback rest again.
func (t *thumbnails) waiting() <-chan struct{} {
	if t.idle == nil {
		t.idle = make(chan struct{})
	}
	return t.idle
}

// rested wakes the worker waiting, now that the keys and playback rest.
func (t *thumbnails) rested() {
	if t.idle != nil {
		close(t.idle)
		t.idle = nil
	}
}

// Thumbnail returns the thumbnail of a file of the browsing list, if it is
// made yet.
func (s *Session) Thumbnail(path string) (*image.RGBA, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.thumbs.get(path)
}

// startThumbs makes the thumbnails of the list in the background, those
// nearest the file shown first, one file at a time and never while a key
// is held or a movie plays; they are kept in the disk cache.
func (s *Session) startThumbsLocked() {
	if s.thumbs.running || s.closed || len(s.browse.list) < 2 {
		return
	}
	s.thumbs.running = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stop := s.stopOnClose(cancel)
		defer stop()
		for {
			path, gen, ok := s.nextThumb()
			if !ok || !s.waitIdle(ctx) || ctx.Err() != nil {
				return
			}
			img, err := s.thumbs.make(ctx, path)
			if err != nil {
				s.markFailed(path, err, gen) // its card says why
			}
			s.mu.Lock()
			s.thumbs.put(path, img)
			s.mu.Unlock()
			s.changed(ThumbnailsChanged)
		}
	}()
}

// nextThumb is the file of the list nearest the one shown without a
// thumbnail, and the list's generation; false when all have one (the
// worker then ends).
func (s *Session) nextThumb() (string, uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path, ok := s.thumbs.next(s.browse.list, s.browse.pos)
	return path, s.browse.gen, ok
}

// waitIdle waits until no key is held and nothing plays; false when ctx
// ends first.
func (s *Session) waitIdle(ctx context.Context) bool {
	for {
		s.mu.Lock()
		if !s.scrub.active && !s.play.on {
			s.mu.Unlock()
			return true
		}
		ch := s.thumbs.waiting()
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// signalIdleLocked wakes the work waiting for the keys and playback to
// rest.
func (s *Session) signalIdleLocked() {
	if !s.scrub.active && !s.play.on {
		s.thumbs.rested()
	}
}

// make returns the thumbnail of path from the disk cache, or makes it
// (and keeps it there); nil when none can be made, with the error when
// the file does not open. It takes no lock.
func (t *thumbnails) make(ctx context.Context, path string) (*image.RGBA, error) {
	cache := t.cachePath(path)
	if cache != "" {
		if img := readThumb(cache); img != nil {
			return img, nil
		}
	}
	src, err := t.open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	img := makeThumb(ctx, src)
	if img != nil && cache != "" {
		var b bytes.Buffer
		if png.Encode(&b, img) == nil && os.MkdirAll(filepath.Dir(cache), 0o755) == nil {
			fsutil.WriteAtomic(cache, b.Bytes())
		}
	}
	return img, nil
}

// cachePath is where the thumbnail of a file is kept: named by the file's
// identity, so that a changed file gets a new one ("" when there is no
// cache or no identity).
func (t *thumbnails) cachePath(path string) string {
	if t.root == "-" {
		return ""
	}
	id, err := loader.FileIdentity(path)
	if err != nil {
		return ""
	}
	root := t.root
	if root == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		root = filepath.Join(dir, "vastview", "levels")
	}
	key, _ := json.Marshal(id)
	sum := sha256.Sum256(key)
	return filepath.Join(filepath.Dir(root), "thumbs", hex.EncodeToString(sum[:12])+".png")
}

// readThumb decodes a kept thumbnail, or returns nil.
func readThumb(path string) *image.RGBA {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil
	}
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}

// makeThumb draws the middle plane of src's coarsest stored level, shrunk
// to fit ThumbSize by averaging, auto-contrasted (colour pixels in colour).
func makeThumb(ctx context.Context, src loader.Source) *image.RGBA {
	m := src.Meta()
	k := len(m.Levels) - 1
	l := &m.Levels[k]
	at := map[byte]int{}
	for i, a := range []byte(m.Axes) {
		if a != 'Y' && a != 'X' && a != 'C' {
			at[a] = l.Shape[i] / 2
		}
	}
	w, h := m.Size('X'), m.Size('Y')
	if ia, ib := m.AxisIndex('X'), m.AxisIndex('Y'); ia >= 0 && ib >= 0 {
		w, h = l.Shape[ia], l.Shape[ib]
	}
	if int64(w)*int64(h)*int64(m.DType.Size()) > maxThumbPlane {
		return nil
	}
	layers := thumbLayers(m)
	tw, th := thumbDims(w, h)
	sum := make([][3]int, tw*th)
	for _, ly := range layers {
		if m.AxisIndex('C') >= 0 {
			at['C'] = ly.c
		}
		buf, pw, ph, err := loader.ReadPlane(ctx, src, k, loader.Plane{Orientation: loader.XY, At: at})
		if err != nil {
			return nil
		}
		plane := shrink(buf, m.DType, pw, ph, tw, th)
		lo, hi := ly.lo, ly.hi
		if !(hi > lo) {
			lo, hi = thumbRange(plane)
		}
		for p, v := range plane {
			c := ly.cm.LUT[scale8(v, lo, hi)]
			sum[p][0], sum[p][1], sum[p][2] = sum[p][0]+int(c[0]), sum[p][1]+int(c[1]), sum[p][2]+int(c[2])
		}
	}
	out := image.NewRGBA(image.Rect(0, 0, tw, th))
	for p, c := range sum {
		out.Pix[4*p], out.Pix[4*p+1], out.Pix[4*p+2], out.Pix[4*p+3] = uint8(min(255, c[0])), uint8(min(255, c[1])), uint8(min(255, c[2])), 255
	}
	return mirror(out, Flips(m, Radiological)[render.XY]) // an anatomical volume as the viewer first shows it
}

// mirror lays img out as f says: flipped in place, then transposed (a
// new image) for a swapped plane.
func mirror(img *image.RGBA, f render.Flip) *image.RGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	for y := 0; y < h && f.Col; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for a, b := 0, w-1; a < b; a, b = a+1, b-1 {
			pa, pb := row[4*a:4*a+4:4*a+4], row[4*b:4*b+4:4*b+4]
			for k := range 4 {
				pa[k], pb[k] = pb[k], pa[k]
			}
		}
	}
	for a, b := 0, h-1; a < b && f.Row; a, b = a+1, b-1 {
		ra, rb := img.Pix[a*img.Stride:a*img.Stride+4*w], img.Pix[b*img.Stride:b*img.Stride+4*w]
		for k := range ra {
			ra[k], rb[k] = rb[k], ra[k]
		}
	}
	if !f.Swap {
		return img
	}
	out := image.NewRGBA(image.Rect(0, 0, h, w))
	for y := range h {
		for x := range w {
			copy(out.Pix[x*out.Stride+4*y:x*out.Stride+4*y+4], img.Pix[y*img.Stride+4*x:])
		}
	}
	return out
}

// thumbLayer is a channel of a thumbnail: its colours and window (lo ==
// hi: chosen from the thumbnail's values).
type thumbLayer struct {
	c      int
	cm     *render.Colormap
	lo, hi float64
}

// maxThumbChannels bounds the channels a thumbnail adds up.
const maxThumbChannels = 8

// thumbLayers are the channels a thumbnail of m shows, as the view first
// shows them: the red, green and blue of colour pixels; the visible
// channels of a composite in their colours; else the first channel in
// gray (label images too: their colours need no window).
func thumbLayers(m *loader.Meta) []thumbLayer {
	gray, _ := render.ColormapNamed("gray")
	if m.RGB && m.Size('C') == 3 {
		lo, hi, ok := render.RGBWindow(m.DType)
		if !ok {
			lo, hi = 0, 0
		}
		var out []thumbLayer
		for c, name := range []string{"#ff0000", "#00ff00", "#0000ff"} {
			cm, _ := render.ColormapNamed(name)
			out = append(out, thumbLayer{c: c, cm: cm, lo: lo, hi: hi})
		}
		return out
	}
	cs, mode := initialChannels(m)
	if m.Label || len(cs) < 2 || mode != Composite {
		return []thumbLayer{{cm: gray}}
	}
	var out []thumbLayer
	for c, ch := range cs {
		if cm, err := render.ColormapNamed(ch.colormap); err == nil && !ch.hidden && len(out) < maxThumbChannels {
			out = append(out, thumbLayer{c: c, cm: cm, lo: ch.lo, hi: ch.hi})
		}
	}
	if len(out) == 0 {
		return []thumbLayer{{cm: gray}}
	}
	return out
}

// thumbDims fits w×h in ThumbSize, keeping the aspect (at least 1×1).
func thumbDims(w, h int) (int, int) {
	f := min(1, float64(ThumbSize)/float64(max(w, h)))
	return max(1, int(math.Round(float64(w)*f))), max(1, int(math.Round(float64(h)*f)))
}

// shrink averages a w×h plane down to tw×th.
func shrink(buf []byte, dt loader.DType, w, h, tw, th int) []float64 {
	sum := make([]float64, tw*th)
	n := make([]int, tw*th)
	for y := range h {
		ty := y * th / h
		for x := range w {
			v := render.Sample(buf, dt, y*w+x)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			i := ty*tw + x*tw/w
			sum[i] += v
			n[i]++
		}
	}
	for i := range sum {
		if n[i] > 0 {
			sum[i] /= float64(n[i])
		}
	}
	return sum
}

// thumbRange is the 1st and 99th percentile of the values, for contrast.
func thumbRange(v []float64) (lo, hi float64) {
	s := append([]float64(nil), v...)
	slices.Sort(s)
	lo, hi = s[len(s)/100], s[len(s)-1-len(s)/100]
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

func scale8(v, lo, hi float64) uint8 {
	f := (v - lo) / (hi - lo) * 255
	return uint8(max(0, min(255, math.Round(f))))
}
