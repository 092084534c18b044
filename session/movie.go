package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/image/tiff"

	"vastview/base/fsutil"
	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// MovieOptions say which frames a movie shows and how it is written.
type MovieOptions struct {
	// Axis is what the frames step along: 'T', or 'Z' for the planes (the
	// axis normal to the view's plane: Z for XY, Y for XZ, X for YZ). 0
	// is the axis the step keys move along (T for a movie, the planes for
	// a volume).
	Axis byte
	// From and To are the first and last positions, inclusive; To < 0 is
	// the last there is.
	From, To int
	// FPS is an MP4's frame rate; 0 is MovieFPS's.
	FPS float64
	// Overwrite replaces an existing output; without it one is an error.
	Overwrite bool
	// Progress, if set, is called after each frame written, with the
	// frames written and in all.
	Progress func(done, total int)
	// Tidied, if set, is called before the first frame with the names of
	// what earlier writes of the same output, killed before they ended,
	// had left and Write removed.
	Tidied func(removed []string)
}

// defaultMovieFPS is an MP4's frame rate along the planes, or along a
// time axis without a known interval.
const defaultMovieFPS = 25

// MovieFPS is the frame rate a movie of m along axis (as MovieAxis
// resolves it) is written at unless another is asked for: the data's own
// along T (one over the time interval), else 25 (along the planes the
// time interval says nothing about the pace). It is the one rule of the
// command line and the window.
func MovieFPS(m *loader.Meta, axis byte) float64 {
	if axis == 'T' {
		if r, ok := fileRate(m); ok {
			return r
		}
	}
	return defaultMovieFPS
}

// Movie is a view to render at every position along an axis: the data,
// the view, and what is drawn over it (a Picture drawn once a position).
type Movie struct {
	*Picture
	stamp bool
	orbit []oblique.Plane // the planes of a 3-D rendering's frames (see Orbit)
}

// NewMovie is a movie of view v of d, v.Width × v.Height pixels (a Zoom
// of 0 fits the plane), with the scale bar drawn if scaleBar is set and
// the time stamp (the position, for a movie along the planes) if stamp is.
// It holds d until Close.
func NewMovie(d *Data, v render.View, scaleBar, stamp bool) (*Movie, error) {
	p, err := NewPicture(d, v, scaleBar)
	if err != nil {
		return nil, err
	}
	return &Movie{Picture: p, stamp: stamp}, nil
}

// MovieAxis is the axis o.Axis names for view v of m, and the first and
// last positions of the movie along it.
func MovieAxis(m *loader.Meta, v render.View, o MovieOptions) (axis byte, from, to int, err error) {
	switch o.Axis {
	case 0:
		axis = stepAxis(m, v.Orientation)
	case 'T', 't':
		axis = 'T'
	case 'Z', 'z':
		_, _, axis = v.Orientation.Axes()
	default:
		return 0, 0, 0, fmt.Errorf("a movie runs along t or z, not %q", o.Axis)
	}
	n := m.Size(axis)
	if m.AxisIndex(axis) < 0 || n < 1 {
		n = 1
	}
	from, to = o.From, o.To
	if to < 0 {
		to = n - 1
	}
	if from < 0 || from > to || to >= n {
		return 0, 0, 0, fmt.Errorf("range %d:%d is outside %s 0..%d", o.From, o.To, axisName(axis, v.Orientation), n-1)
	}
	return axis, from, to, nil
}

// axisName is how a movie's axis is named to the user: t, or z for the
// planes of an orientation (the axis normal to it).
func axisName(axis byte, o render.Orientation) string {
	if _, _, n := o.Axes(); axis == n {
		return "z (" + string(axis+'a'-'A') + ")"
	}
	return string(axis + 'a' - 'A')
}

// Write renders the movie's view at every position along the axis o
// asks for and writes the frames to path: an MP4 (H.264 through ffmpeg,
// yuv420p, the picture cropped to even dimensions) when path ends in
// .mp4, else a numbered series of PNG or TIFF images (path a folder, or
// a name ending in .png or .tif whose frames are NAME_t0012.png, ...).
// Each frame is drawn from the levels its size needs, complete, its
// neighbours read ahead; the window of each channel left to choose is
// chosen on the first frame and kept. Nothing is left at path when it
// fails or ctx ends.
func (mv *Movie) Write(ctx context.Context, path string, o MovieOptions) error {
	m := mv.sc.d.Pyr.Meta()
	axis, from, to, err := mv.frames(m, o)
	if err != nil {
		return err
	}
	if p := mv.sc.proj; p != nil && p.axis == axis && from < to {
		return fmt.Errorf("a projection along %c is the same at every plane: make the movie along t", axis+'a'-'A')
	}
	v := mv.sc.view
	w, h := v.Width, v.Height
	if o := mv.sc.ortho; o != nil { // the four panels
		w, h = o.w, o.h
	}
	if w < 2 || h < 2 {
		return fmt.Errorf("a movie of %d×%d pixels is too small", w, h)
	}
	fps := o.FPS
	if !(fps > 0) {
		fps = MovieFPS(m, axis)
	}
	sink, err := newFrameSink(path, axis, to, fps, w, h, o.Overwrite, o.Tidied)
	if err != nil {
		return err
	}
	if err := mv.render(ctx, axis, from, to, sink, o.Progress); err != nil {
		sink.abort()
		return err
	}
	return sink.finish()
}

// frames is the axis the movie's frames step along and the first and
// last of them: an orbit's, or MovieAxis's.
func (mv *Movie) frames(m *loader.Meta, o MovieOptions) (axis byte, from, to int, err error) {
	if mv.orbit == nil {
		return MovieAxis(m, mv.sc.view, o)
	}
	from, to = o.From, o.To
	if to < 0 {
		to = len(mv.orbit) - 1
	}
	if from < 0 || from > to || to >= len(mv.orbit) {
		return 0, 0, 0, fmt.Errorf("range %d:%d is outside the orbit's frames 0..%d", o.From, o.To, len(mv.orbit)-1)
	}
	return orbitAxis, from, to, nil
}

// render draws every frame from..to along axis and hands each to sink.
func (mv *Movie) render(ctx context.Context, axis byte, from, to int, sink frameSink, progress func(done, total int)) error {
	wake, stop := mv.arrivals()
	defer stop()
	p := newPlanePainter()
	sc := mv.sc
	sc.movie, sc.dir, sc.ahead = true, 1, movieAhead
	if mv.stamp {
		sc.stampAxis = axis
	}
	for i := from; i <= to; i++ {
		if axis == orbitAxis {
			cs := *sc.cast
			cs.plane = mv.orbit[i]
			sc.cast = &cs
		} else {
			sc.view.SetAt(axis, i)
		}
		if sc.ortho != nil {
			sc.ortho.moveTo(axis, i)
		}
		f, err := drawComplete(ctx, p, &sc, wake)
		if err != nil {
			if ctx.Err() == nil {
				err = fmt.Errorf("%s %d: %w", axisName(axis, sc.view.Orientation), i, err)
			}
			return err
		}
		if i == from {
			sc.view = f.View // the windows chosen, kept for every frame
		}
		sc.dir = 1
		if err := sink.write(i, f.Img); err != nil {
			return err
		}
		if progress != nil {
			progress(i-from+1, to-from+1)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// movieAhead is how many chunk layers a movie reads ahead of the frame
// drawn, in the background.
const movieAhead = 4

// frameSink takes a movie's frames in order.
type frameSink interface {
	write(i int, img *image.RGBA) error
	finish() error // the output is complete at its path
	abort()        // nothing is left
}

// newFrameSink is the writer of frames for path (see Movie.Write), w × h
// pixels, whose last position along axis is last. An existing output is
// an error unless overwrite is set. What killed writes of the same output
// left (fsutil.RemoveStalePartials) is removed first and, when there was
// some, named to tidied.
func newFrameSink(path string, axis byte, last int, fps float64, w, h int, overwrite bool, tidied func([]string)) (frameSink, error) {
	lower := strings.ToLower(path)
	st, statErr := os.Stat(path)
	tidy := func(out string) {
		if removed := fsutil.RemoveStalePartials(out); len(removed) > 0 && tidied != nil {
			tidied(removed)
		}
	}
	switch {
	case strings.HasSuffix(lower, ".mp4"):
		if statErr == nil && !overwrite {
			return nil, errors.New("it exists already (replace it with --overwrite)")
		}
		tidy(path)
		return startFFmpeg(path, fps, w, h)
	case strings.HasSuffix(lower, ".png") || strings.HasSuffix(lower, ".tif") || strings.HasSuffix(lower, ".tiff"):
		ext := filepath.Ext(path)
		s := &series{dir: filepath.Dir(path), prefix: strings.TrimSuffix(filepath.Base(path), ext), ext: ext}
		tidy(s.key())
		return s.start(axis, last, overwrite)
	case statErr == nil && st.IsDir() || strings.HasSuffix(path, string(filepath.Separator)) || filepath.Ext(path) == "":
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, loader.StripPath(err)
		}
		s := &series{dir: path, prefix: "frame", ext: ".png"}
		tidy(s.key())
		return s.start(axis, last, overwrite)
	}
	return nil, errors.New("a movie is written as .mp4, or as a series of .png or .tif images (a folder, or NAME.png)")
}

// series writes each frame as an image of its own, first into a folder
// of its own beside them (fsutil.MkdirPartial of dir/PREFIX.EXT), then,
// once every frame is there, under the frames' names: a series that was
// stopped, or killed, leaves no frame under its name.
type series struct {
	dir, prefix, ext, digits string
	axis                     byte
	overwrite                bool
	tmp                      string
	lock                     *fsutil.Lock
	written                  []int
}

// key is the name the series' temporary folder is named after.
func (s *series) key() string { return filepath.Join(s.dir, s.prefix+s.ext) }

// start checks that the series may be written and makes its folder.
func (s *series) start(axis byte, last int, overwrite bool) (*series, error) {
	s.axis, s.overwrite = axis, overwrite
	s.digits = strconv.Itoa(max(4, len(strconv.Itoa(last))))
	if !overwrite {
		if _, err := os.Stat(s.name(0)); err == nil {
			return nil, fmt.Errorf("%s exists already (replace the series with --overwrite)", filepath.Base(s.name(0)))
		}
	}
	tmp, lock, err := fsutil.MkdirPartial(s.key())
	if err != nil {
		return nil, loader.StripPath(err)
	}
	s.tmp, s.lock = tmp, lock
	return s, nil
}

// base is the file name of the frame at position i.
func (s *series) base(i int) string {
	return fmt.Sprintf("%s_%c%0"+s.digits+"d%s", s.prefix, s.axis+'a'-'A', i, s.ext)
}

// name is the path of the frame at position i.
func (s *series) name(i int) string { return filepath.Join(s.dir, s.base(i)) }

func (s *series) write(i int, img *image.RGBA) error {
	var b bytes.Buffer
	var err error
	if s.ext == ".png" || s.ext == ".PNG" {
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img)
	} else {
		err = tiff.Encode(&b, img, &tiff.Options{Compression: tiff.Deflate})
	}
	if err != nil {
		return err
	}
	if err := s.exists(i); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(s.tmp, s.base(i)), b.Bytes(), fsutil.FileMode); err != nil {
		return loader.StripPath(err)
	}
	s.written = append(s.written, i)
	return nil
}

// exists refuses a frame i already under its name, unless overwrite is set.
func (s *series) exists(i int) error {
	if s.overwrite {
		return nil
	}
	if _, err := os.Lstat(s.name(i)); err == nil {
		return fmt.Errorf("%s exists already (replace the series with --overwrite)", s.base(i))
	}
	return nil
}

// finish moves every frame to its name, in order, then removes the
// folder. If one cannot be, those moved are removed again.
func (s *series) finish() error {
	for k, i := range s.written {
		err := s.exists(i)
		if err == nil {
			err = loader.StripPath(os.Rename(filepath.Join(s.tmp, s.base(i)), s.name(i)))
		}
		if err != nil {
			for _, j := range s.written[:k] {
				os.Remove(s.name(j))
			}
			s.abort()
			return err
		}
	}
	s.lock.Unlock()
	os.Remove(s.tmp)
	return nil
}

func (s *series) abort() {
	s.lock.Unlock()
	os.RemoveAll(s.tmp)
}

// ffmpegSink streams frames to ffmpeg, which encodes them into a file
// beside the output (fsutil.PartialName), renamed to it when the movie is
// complete.
type ffmpegSink struct {
	path, tmp string
	w, h      int // even
	cmd       *exec.Cmd
	in        io.WriteCloser
	stderr    bytes.Buffer
}

func startFFmpeg(path string, fps float64, w, h int) (*ffmpegSink, error) {
	tmp := fsutil.PartialName(path)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	f.Close()
	s := &ffmpegSink{path: path, tmp: tmp, w: w &^ 1, h: h &^ 1}
	if s.cmd, err = EncodeCommand(s.w, s.h, fps, s.tmp); err != nil {
		os.Remove(s.tmp)
		return nil, err
	}
	s.cmd.Stderr = &s.stderr
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		os.Remove(s.tmp)
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		os.Remove(s.tmp)
		return nil, fmt.Errorf("ffmpeg: %w", err)
	}
	return s, nil
}

// EncodeCommand is the ffmpeg command that encodes w × h RGBA frames
// (even sizes), read from its standard input, into the MP4 out at fps:
// H.264, yuv420p, quality 18 (visually lossless), the index at the front
// for players that stream. The fastest preset: on noisy frames, as a
// microscope's are, the others encode three to four times slower for
// files a fifth smaller (docs/PERFORMANCE.md).
func EncodeCommand(w, h int, fps float64, out string) (*exec.Cmd, error) {
	bin, err := exec.LookPath("ffmpeg")
	if err != nil {
		return nil, errors.New("writing an MP4 needs ffmpeg (install the ffmpeg package), or write a series of .png images")
	}
	return exec.Command(bin, "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt.Sprintf("%dx%d", w, h),
		"-framerate", strconv.FormatFloat(fps, 'g', -1, 64), "-i", "pipe:0",
		"-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-pix_fmt", "yuv420p",
		"-movflags", "+faststart", "-f", "mp4", out), nil
}

func (s *ffmpegSink) write(_ int, img *image.RGBA) error {
	// The frame without its odd last row and column, row by row.
	n := 4 * s.w
	if img.Stride == n && img.Rect.Dy() >= s.h {
		_, err := s.in.Write(img.Pix[:n*s.h])
		return s.failed(err)
	}
	for y := 0; y < s.h; y++ {
		if _, err := s.in.Write(img.Pix[y*img.Stride:][:n]); err != nil {
			return s.failed(err)
		}
	}
	return nil
}

// failed turns a write to ffmpeg that failed into what ffmpeg said.
func (s *ffmpegSink) failed(err error) error {
	if err == nil {
		return nil
	}
	s.in.Close()
	s.cmd.Wait()
	return s.error(err)
}

// error is ffmpeg's last line of complaint, or err.
func (s *ffmpegSink) error(err error) error {
	msg := strings.TrimSpace(s.stderr.String())
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	if msg != "" {
		return fmt.Errorf("ffmpeg: %s", msg)
	}
	return fmt.Errorf("ffmpeg: %w", err)
}

func (s *ffmpegSink) finish() error {
	s.in.Close()
	if err := s.cmd.Wait(); err != nil {
		os.Remove(s.tmp)
		return s.error(err)
	}
	os.Chmod(s.tmp, fsutil.FileMode)
	if err := os.Rename(s.tmp, s.path); err != nil {
		os.Remove(s.tmp)
		return loader.StripPath(err)
	}
	return nil
}

func (s *ffmpegSink) abort() {
	s.in.Close()
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
	s.cmd.Wait()
	os.Remove(s.tmp)
}

// stampText is the stamp drawn on view v of m for a movie along axis:
// the time (from the spacing of T in a unit of time, else the time
// point) or the position along the planes (physical when the axis has a
// length unit).
func stampText(m *loader.Meta, v render.View, axis byte) string {
	i := m.AxisIndex(axis)
	pos := v.At(axis)
	if i < 0 {
		return ""
	}
	step, unit := m.Spacing[i], m.Units[i]
	if axis == 'T' {
		if dt := secondsPer(step, unit); dt > 0 {
			return timeLabel(float64(pos)*dt, dt, float64(m.Shape[i]-1)*dt)
		}
		return fmt.Sprintf("t %d", pos)
	}
	name := string(axis + 'a' - 'A')
	if f, kind := loader.UnitScale(unit); kind == loader.Length && step > 0 {
		return name + " " + render.LengthLabel(float64(pos)*step*f)
	}
	return fmt.Sprintf("%s %d", name, pos)
}

// timeLabel writes sec seconds as a time stamp, with the decimals a step
// of dt shows (at most milliseconds) and minutes and hours when the last
// time point, at last seconds, has them: "12.50 s", "1:02.50", "1:00:02".
func timeLabel(sec, dt, last float64) string {
	dec := min(3, max(0, int(math.Ceil(-math.Log10(dt)-1e-9))))
	if last < 60 {
		return strconv.FormatFloat(sec, 'f', dec, 64) + " s"
	}
	ms := int64(math.Round(sec * 1000))
	h, m, s := ms/3600000, ms/60000%60, float64(ms%60000)/1000
	secs := strconv.FormatFloat(s, 'f', dec, 64)
	if s < 10 {
		secs = "0" + secs
	}
	if last < 3600 {
		return fmt.Sprintf("%d:%s", m, secs)
	}
	return fmt.Sprintf("%d:%02d:%s", h, m, secs)
}

// movieSource draws a movie's frames with the view's chunks asked for in
// the background, first come first served: a movie's requests are not
// dropped when the window shows something else, nor hold up its view.
type movieSource struct{ render.Source }

func (s movieSource) Request(_ levels.Priority, _ uint64, level int, idxs ...[]int) {
	s.Source.Request(levels.Background, 0, level, idxs...)
}

// MovieName is the name a movie of the data shown is first offered
// under: the file's name with .mp4.
func (s *Session) MovieName() string { return s.offeredName(".mp4") }

// ExportMovie writes a movie of the view shown (its size, zoom, channels,
// layers, scale bar and time stamp) along the axis o asks for to path
// (see Movie.Write) in the background; the window stays free meanwhile,
// its own frames drawn first; of the 3-D view shown alone, a turntable
// (see orbitLocked: o's axis is not used, From and To pick frames).
// onEnd, if set, is called (from another goroutine) when it ends.
func (s *Session) ExportMovie(path string, o MovieOptions, onEnd func(*Export)) (*Export, error) {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
		os.Remove(path) // the empty file a save dialog made
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.data == nil || s.view.Width < 2 || s.view.Height < 2 {
		return nil, errors.New("nothing to make a movie of")
	}
	req := s.requestLocked(s.clock.Now(), 0).Scene
	orbit := req.vol != nil && s.v3.on // the 3-D view: a turntable
	if _, _, _, err := MovieAxis(req.d.Pyr.Meta(), req.view, o); err != nil && !orbit {
		return nil, err
	}
	mv := &Movie{Picture: &Picture{sc: req}, stamp: s.stamp}
	if orbit {
		if err := s.orbitLocked(mv); err != nil {
			return nil, err
		}
	}
	// Projections of its own: the window's may change meanwhile.
	if p := req.proj; p != nil {
		mv.sc.proj = newProjection(p.pyr, p.op, p.axis, p.a, p.b)
		mv.projs = append(mv.projs, mv.sc.proj)
	}
	if o := req.ortho; o != nil {
		oc := *o
		if p := o.proj; p == req.proj && p != nil {
			oc.proj = mv.sc.proj
		} else if p != nil {
			oc.proj = newProjection(p.pyr, p.op, p.axis, p.a, p.b)
			mv.projs = append(mv.projs, oc.proj)
		}
		mv.sc.ortho = &oc
	}
	held := []*Data{req.d}
	for _, l := range req.layers {
		held = append(held, l.d)
	}
	for i, d := range held {
		if !d.acquire() {
			for _, h := range held[:i] {
				h.Release()
			}
			for _, p := range mv.projs {
				p.close()
			}
			return nil, errors.New("nothing to make a movie of")
		}
	}
	for _, l := range req.layers {
		mv.layers = append(mv.layers, l.d)
	}
	return s.exports.start(path, onEnd, mv.Close, func(ctx context.Context, progress func(done, total int)) error {
		o.Progress = progress
		return mv.Write(ctx, path, o)
	})
}
