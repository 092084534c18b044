package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"vastview/base/fsutil"
	"vastview/levels"
	"vastview/levels/omezarr"
	"vastview/loader"
	"vastview/render"
)

// Export is an OME-Zarr export in progress. It holds its data open, so
// that opening another file does not stop it; Session.Close cancels it.
// Its methods are safe for concurrent use.
type Export struct {
	Path   string
	cancel context.CancelFunc
	done   chan struct{}

	mu          sync.Mutex
	chunks, all int
	err         error
}

// Cancel stops the export; nothing is left at its path.
func (e *Export) Cancel() { e.cancel() }

// Done is closed when the export has ended.
func (e *Export) Done() <-chan struct{} { return e.done }

// Progress returns the chunks (a movie's frames) written and in all.
func (e *Export) Progress() (done, total int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.chunks, e.all
}

// Err is the export's error once Done is closed: nil when it was
// written, context.Canceled when it was cancelled.
func (e *Export) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// ExportName is the name an export of the data shown is first offered
// under: the file's name with its image extensions replaced by .ome.zarr.
func (s *Session) ExportName() string { return s.offeredName(".ome.zarr") }

// offeredName is the name of the data shown (without its image
// extensions, "demo" for none) with ext.
func (s *Session) offeredName(ext string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil || s.data.Name == "" {
		return "demo" + ext
	}
	return baseName(s.data.Name) + ext
}

// baseName is a path's last element without its image extensions
// (".ome.tif", ".nii.gz", ".ome.zarr", ...).
func baseName(name string) string {
	b := displayName(name)
	lower := strings.ToLower(b)
	for _, ext := range []string{".ome.zarr", ".ome.tiff", ".ome.tif", ".nii.gz", ".zarr", ".tiff", ".tif",
		".nrrd", ".nhdr", ".mha", ".mhd", ".nii", ".png", ".jpg", ".jpeg", ".mp4", ".mov", ".avi", ".mkv"} {
		if strings.HasSuffix(lower, ext) && len(b) > len(ext) {
			return b[:len(b)-len(ext)]
		}
	}
	if ext := filepath.Ext(b); ext != "" && len(ext) < len(b) {
		return b[:len(b)-len(ext)]
	}
	return b
}

// Export writes the data shown, with every level, as OME-Zarr at path
// (".ome.zarr" is added unless it ends in ".zarr"), in the background; the
// channels go into its metadata as they are shown (names, colours,
// windows). onEnd, if set, is called (from another goroutine) when it
// ends.
func (s *Session) Export(path string, o ExportOptions, onEnd func(*Export)) (*Export, error) {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
		os.Remove(path) // the empty file a save dialog made
	}
	if !strings.HasSuffix(strings.ToLower(path), ".zarr") {
		path += ".ome.zarr"
	}
	s.mu.Lock()
	if s.closed || s.data == nil {
		s.mu.Unlock()
		return nil, errors.New("nothing to export")
	}
	d := s.data
	if !d.acquire() {
		s.mu.Unlock()
		return nil, errors.New("nothing to export")
	}
	s.keepChannelLocked()
	chans := exportChannels(d.Pyr.Meta(), s.chans.list)
	e, err := s.exports.start(path, onEnd, d.Release, func(ctx context.Context, progress func(done, total int)) error {
		m := d.Pyr.Meta()
		var src loader.Source = d.Pyr
		method := map[bool]string{true: "mode", false: "mean"}[m.Label]
		if o.Method != "" && o.Method != method {
			// The levels by the other method, computed from level 0 as
			// they are written.
			p, err := levels.Open(levelZero{d.Pyr}, levels.Options{Mode: o.Method == "mode"})
			if err != nil {
				return err
			}
			defer p.Close()
			src, method = p, o.Method
		}
		return omezarr.Write(ctx, path, src, omezarr.Options{
			Version:  o.Version,
			Codec:    o.Codec,
			Type:     method,
			Channels: chans,
			Progress: progress,
		})
	})
	s.mu.Unlock()
	return e, err
}

// ExportOptions are the choices of an OME-Zarr export, as the pyramid
// command offers them.
type ExportOptions struct {
	// Version is the Zarr format: 2 (OME-NGFF 0.4, also when 0) or 3
	// (OME-NGFF 0.5).
	Version int
	// Codec is the chunks' compression: "zstd" (also when ""), "gzip" or
	// "none".
	Codec string
	// Method is how the levels are computed: "mean" or "mode"; "" means
	// the data's own (mode for label images).
	Method string
}

// levelZero is a pyramid's level 0 as a source of its own, so that other
// levels can be computed from it.
type levelZero struct{ p *levels.Pyramid }

func (l levelZero) Meta() *loader.Meta {
	m := *l.p.Meta()
	m.Levels = m.Levels[:1]
	return &m
}

func (l levelZero) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	return l.p.ReadChunk(ctx, level, idx, dst)
}

func (l levelZero) Close() error { return nil }

// exportSet is the part of the session that runs exports in the
// background: those in progress, cancelled and waited for when the
// session closes. It has its own lock and knows nothing else of the
// session: what an export writes and holds comes with it. Safe for
// concurrent use.
type exportSet struct {
	mu      sync.Mutex
	running map[*Export]struct{}
	closed  bool
	wg      sync.WaitGroup
}

// start runs work, writing path, in the background as an Export, then
// calls release and onEnd (if set, from another goroutine). work reports
// its progress through the function it is handed. Once the set is closed
// it calls release and returns an error instead.
func (x *exportSet) start(path string, onEnd func(*Export), release func(), work func(ctx context.Context, progress func(done, total int)) error) (*Export, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		release()
		return nil, errors.New("the viewer is closing")
	}
	ctx, cancel := context.WithCancel(levels.ForBackground(context.Background()))
	e := &Export{Path: path, cancel: cancel, done: make(chan struct{})}
	if x.running == nil {
		x.running = map[*Export]struct{}{}
	}
	x.running[e] = struct{}{}
	x.wg.Add(1)
	go func() {
		defer x.wg.Done()
		err := work(ctx, func(done, total int) {
			e.mu.Lock()
			e.chunks, e.all = done, total
			e.mu.Unlock()
		})
		release()
		cancel()
		e.mu.Lock()
		e.err = err
		e.mu.Unlock()
		x.mu.Lock()
		delete(x.running, e)
		x.mu.Unlock()
		close(e.done)
		if onEnd != nil {
			onEnd(e)
		}
	}()
	return e, nil
}

// close cancels the exports in progress and refuses new ones; wait then
// waits for them to end.
func (x *exportSet) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	for e := range x.running {
		e.Cancel()
	}
}

// wait waits for the exports started to end.
func (x *exportSet) wait() { x.wg.Wait() }

// exportChannels describes the channels as they are shown: the file's
// names, the colours and windows chosen.
func exportChannels(m *loader.Meta, chans []channelState) []loader.Channel {
	if m.RGB || m.Label {
		return nil
	}
	out := make([]loader.Channel, len(chans))
	for c, cs := range chans {
		if c < len(m.Channels) {
			out[c] = m.Channels[c]
		}
		if col, ok := render.ParseColor(cs.colormap); ok {
			out[c].Color, out[c].HasColor = col, true
		}
		if cs.hi > cs.lo {
			out[c].Lo, out[c].Hi, out[c].HasWindow = cs.lo, cs.hi, true
		}
		out[c].Hidden = cs.hidden
	}
	return out
}

// SaveFolder is where a save of the data shown is first offered: the
// folder of its file, else the home folder.
func (s *Session) SaveFolder() string {
	s.mu.Lock()
	name := ""
	if s.data != nil {
		name = s.data.Name
	}
	s.mu.Unlock()
	if name != "" && !loader.IsURL(name) {
		return filepath.Dir(name)
	}
	if home, err := os.UserHomeDir(); err == nil {
		return home
	}
	return "."
}

// DialogFolder is the folder a file dialog starts in: that of the file
// shown (or of the entry selected that cannot be shown), else the one a
// dialog was last used in (kept in the preferences), else the home
// folder.
func (s *Session) DialogFolder() string {
	s.mu.Lock()
	name := s.browse.picked
	if name == "" && s.data != nil {
		name = s.data.Name
	}
	s.mu.Unlock()
	file, _ := loader.SplitSelector(name)
	if file != "" && !loader.IsURL(file) {
		return filepath.Dir(file)
	}
	if dir := s.prefs.LastFolder(); dir != "" {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		return home
	}
	return "."
}

// SnapshotName is the name a saved view is first offered under: the
// file's name and the position shown ("cells_z021_t000.png").
func (s *Session) SnapshotName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := "demo"
	if s.data != nil && s.data.Name != "" {
		name = baseName(s.data.Name)
	}
	if s.data == nil {
		return name + ".png"
	}
	m := s.data.Pyr.Meta()
	row, col, _ := s.view.Orientation.Axes()
	var b strings.Builder
	b.WriteString(name)
	if s.view.Orientation != render.XY {
		b.WriteString("_" + s.view.Orientation.String())
	}
	for _, a := range []byte("ZYXCT") {
		if a == row || a == col || m.AxisIndex(a) < 0 && a != 'T' || a == 'C' && (m.RGB || m.Size('C') <= 1) {
			continue
		}
		if a == 'T' || m.Size(a) > 1 {
			fmt.Fprintf(&b, "_%c%03d", a-'A'+'a', s.view.At(a))
		}
	}
	return b.String() + ".png"
}

// SaveSnapshot writes the picture on screen to path as a PNG, off the
// calling goroutine; an error becomes a Problem. It writes the image's
// part of the view (without the margins beside it), or with whole the
// whole view (so too for the four panels).
func (s *Session) SaveSnapshot(path string, whole bool) error {
	f := s.Shown()
	if f == nil {
		return errors.New("nothing is shown yet")
	}
	r := f.Img.Rect
	if !whole && f.Panel == "" && f.data != nil {
		if ir := render.ImageRect(f.data.Pyr.Meta(), f.View).Add(r.Min); !ir.Empty() {
			r = ir
		}
	}
	// The frame's buffer is drawn over two frames later: copy it now.
	img := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(img, img.Rect, f.Img, r.Min, draw.Src)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var b bytes.Buffer
		err := png.Encode(&b, img)
		if err == nil {
			err = loader.StripPath(fsutil.WriteAtomic(path, b.Bytes()))
		}
		if err != nil {
			s.problem(filepath.Base(path), err)
		}
	}()
	return nil
}
