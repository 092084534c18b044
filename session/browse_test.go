package session

import (
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/demo"
	_ "vastview/loader/formats" // every format, as the viewer has them
	"vastview/loader/tiff/tiffwrite"
)

// writeStack writes a z×h×w uint16 TIFF stack whose samples tell the file
// (base) and position apart.
func writeStack(t *testing.T, path string, z, h, w int, base uint16) {
	t.Helper()
	err := tiffwrite.Stack(path, w, h, z, loader.Uint16, func(page int, buf []byte) {
		for i := 0; i+1 < len(buf); i += 2 {
			v := base + uint16(page*100+i/2%w)
			buf[i], buf[i+1] = byte(v), byte(v>>8)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writePNG(t *testing.T, path string, w, h int, v uint8) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = v + uint8(i%7)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// browseFolder is a folder of four stacks of one shape, an unreadable
// TIFF and a note: c2.tif comes before c10.tif.
func browseFolder(t *testing.T) (dir string, names []string) {
	dir = t.TempDir()
	for i, n := range []string{"a.tif", "b.tif", "c2.tif", "c10.tif"} {
		writeStack(t, filepath.Join(dir, n), 9, 40, 60, uint16(1000*(i+1)))
	}
	os.WriteFile(filepath.Join(dir, "broken.tif"), []byte("II*\x00garbage"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
	return dir, []string{"a.tif", "b.tif", "broken.tif", "c2.tif", "c10.tif"}
}

func paths(dir string, names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, filepath.Join(dir, n))
	}
	return out
}

func listPaths(list []Entry) []string {
	var out []string
	for _, e := range list {
		out = append(out, e.Path)
	}
	return out
}

func (h *harness) waitData(name string) {
	h.t.Helper()
	h.waitFrame(func(f *Frame) bool { return f.data.Name == name && f.Info.Complete })
}

func TestOpeningAFileListsItsFolderInNaturalOrder(t *testing.T) {
	dir, names := browseFolder(t)
	h := newHarness(t, Options{})
	h.s.Open(filepath.Join(dir, "b.tif"))
	h.waitData(filepath.Join(dir, "b.tif"))
	var list []Entry
	var pos int
	h.waitUpdate(func(Update) bool { list, pos = h.s.List(); return len(list) == len(names) })
	if got, want := listPaths(list), paths(dir, names...); strings.Join(got, " ") != strings.Join(want, " ") || pos != 1 {
		t.Errorf("list %v at %d, want %v at 1", got, pos, want)
	}
	if got := h.s.Title(); got != "vastview — b.tif — 2/5" {
		t.Errorf("title %q", got)
	}
}

// TestStoresBesideFilesAreInTheList opens a file whose folder also holds
// an N5 container, a Zarr store and a folder of frames: the stores are
// entries of the list (a format reads each as one image, by its marker),
// the folder of frames is not.
func TestStoresBesideFilesAreInTheList(t *testing.T) {
	dir := t.TempDir()
	writeStack(t, filepath.Join(dir, "a.tif"), 3, 10, 10, 5)
	writeStack(t, filepath.Join(dir, "d.tif"), 3, 10, 10, 50)
	for p, s := range map[string]string{"b.n5/attributes.json": `{"n5": "4.0.0"}`, "c.zarr/.zgroup": `{"zarr_format": 2}`} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "frames"), 0o755)
	writePNG(t, filepath.Join(dir, "frames", "f1.png"), 8, 8, 1)
	h := newHarness(t, Options{})
	h.s.Open(filepath.Join(dir, "a.tif"))
	want := paths(dir, "a.tif", "b.n5", "c.zarr", "d.tif")
	var list []Entry
	h.waitUpdate(func(Update) bool { list, _ = h.s.List(); return len(list) == len(want) })
	if got := listPaths(list); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("list %v, want %v", got, want)
	}
}

func TestNextAndPreviousSkipFilesThatDoNotOpen(t *testing.T) {
	dir, _ := browseFolder(t)
	h := newHarness(t, Options{})
	h.s.Open(filepath.Join(dir, "b.tif"))
	h.waitData(filepath.Join(dir, "b.tif"))
	h.s.PressWith(KeyRight, Mods{Alt: true})
	h.waitData(filepath.Join(dir, "c2.tif")) // broken.tif skipped
	list, pos := h.s.List()
	if pos != 3 || list[2].Err == nil {
		t.Fatalf("at %d; broken.tif marked %v", pos, list[2].Err)
	}
	h.s.PressWith(KeyLeft, Mods{Alt: true})
	h.waitData(filepath.Join(dir, "b.tif"))
	h.s.PressWith(KeyEnd, Mods{Alt: true})
	h.waitData(filepath.Join(dir, "c10.tif"))
	h.s.PressWith(KeyHome, Mods{Alt: true})
	h.waitData(filepath.Join(dir, "a.tif"))
	h.s.PressWith(KeyLeft, Mods{Alt: true}) // nothing before the first
	if _, pos := h.s.List(); pos != 0 {
		t.Errorf("at %d after going back from the first", pos)
	}
	var keys []string
	for _, e := range h.eventsNamed("key") {
		keys = append(keys, e["key"].(string))
	}
	if got := strings.Join(keys, " "); got != "Alt+Right Alt+Left Alt+End Alt+Home Alt+Left" {
		t.Errorf("keys traced: %s", got)
	}
	if opens := h.eventsNamed("open"); len(opens) != 5 {
		t.Errorf("%d open events for 5 files shown", len(opens))
	}
}

// TestTheViewIsKeptAcrossFilesOfOneShape moves and zooms in one file: the
// next file of the same shape opens there; a file of another shape gets
// its own view.
func TestTheViewIsKeptAcrossFilesOfOneShape(t *testing.T) {
	dir, _ := browseFolder(t)
	writeStack(t, filepath.Join(dir, "d_other.tif"), 3, 20, 30, 7)
	h := newHarness(t, Options{})
	h.s.Open(filepath.Join(dir, "a.tif"))
	h.waitData(filepath.Join(dir, "a.tif"))
	h.s.Press(KeyHome)
	h.s.Press(KeyPeriod)
	h.s.Rune('+')
	h.s.SetWindow(1100, 1900)
	want := h.s.View()
	h.s.NextFile(1)
	h.waitData(filepath.Join(dir, "b.tif"))
	if got := h.s.View(); got.Z != want.Z || got.Zoom != want.Zoom || got.Lo != 1100 || got.Hi != 1900 {
		t.Errorf("b.tif opened at %+v, want the view %+v", got, want)
	}
	// A window auto-contrast chose is chosen again for the next file
	// (whose values are 1000 higher), not carried over.
	h.s.AutoContrast()
	auto := h.waitFrame(func(f *Frame) bool {
		return f.data.Name == filepath.Join(dir, "b.tif") && f.View.Lo != 1100 && f.Info.Complete
	}).View
	h.s.NextFile(1)
	next := h.waitFrame(func(f *Frame) bool { return f.data.Name == filepath.Join(dir, "c2.tif") && f.Info.Complete }).View
	if next.Lo <= auto.Lo || next.Hi <= auto.Hi || next.Z != want.Z {
		t.Errorf("c2.tif shown with [%g, %g] at z %d after b.tif's automatic [%g, %g]", next.Lo, next.Hi, next.Z, auto.Lo, auto.Hi)
	}
	h.s.LastFile()
	h.waitData(filepath.Join(dir, "d_other.tif"))
	if got := h.s.View(); got.Z != 1 || got.Lo == 1100 {
		t.Errorf("a file of another shape opened at %+v", got)
	}
	h.s.SetKeepView(false)
	h.s.FirstFile()
	h.waitData(filepath.Join(dir, "a.tif"))
	if got := h.s.View(); got.Z != want.Z {
		t.Errorf("a.tif's own view is z %d, want %d", got.Z, want.Z)
	}
}

// TestNeighboursAreReadAhead shows b.tif: a.tif and c2.tif open in the
// background with their first view's chunks read, so that moving to one
// shows it complete at once, without reading.
func TestNeighboursAreReadAhead(t *testing.T) {
	dir, _ := browseFolder(t)
	h := newHarness(t, Options{})
	h.s.Open(filepath.Join(dir, "b.tif"))
	h.waitData(filepath.Join(dir, "b.tif"))
	next := filepath.Join(dir, "c2.tif")
	var ahead *Data
	h.waitUpdate(func(Update) bool {
		h.s.mu.Lock()
		ahead = h.s.browse.ahead[next]
		h.s.mu.Unlock()
		return ahead != nil
	})
	// The ahead data's first view is plane 4: wait for its chunk.
	events, unsub := ahead.Pyr.Subscribe()
	for ahead.Pyr.Get(0, []int{4, 0, 0}) == nil {
		<-events
	}
	unsub()
	h.s.NextFile(1)
	f := h.waitFrame(func(f *Frame) bool { return f.data.Name == next })
	if f.data != ahead || !f.Info.Complete {
		t.Errorf("the first frame of c2.tif: read ahead %v, complete %v", f.data == ahead, f.Info.Complete)
	}
	if shown := h.eventsNamed("frame_shown"); shown[len(shown)-1]["bytes_read"].(float64) != 0 {
		t.Errorf("the first frame of c2.tif read %v bytes", shown[len(shown)-1]["bytes_read"])
	}
}

func TestOpenListTakesFilesAndFoldersInOrder(t *testing.T) {
	vols, _ := browseFolder(t)
	frames := t.TempDir()
	for i := range 4 {
		writePNG(t, filepath.Join(frames, "f"+string(rune('0'+i))+".png"), 20, 10, uint8(10*i))
	}
	one := filepath.Join(t.TempDir(), "one.tif")
	writeStack(t, one, 2, 10, 10, 5)
	h := newHarness(t, Options{})
	h.s.OpenList([]string{frames, vols, one})
	h.waitData(frames) // a folder of 2-D frames of one shape is one stack
	list, pos := h.s.List()
	want := append(append([]string{frames}, paths(vols, "a.tif", "b.tif", "broken.tif", "c2.tif", "c10.tif")...), one)
	if got := listPaths(list); strings.Join(got, " ") != strings.Join(want, " ") || pos != 0 {
		t.Errorf("list %v at %d, want %v", got, pos, want)
	}
	if m := h.s.Meta(); m.Format != "sequence" || m.Size('Z') != 4 {
		t.Errorf("the frames opened as %s %v", m.Format, m.Shape)
	}
	// The same folder as a list of files.
	h.s.OpenFolder(frames, false)
	h.waitData(filepath.Join(frames, "f0.png"))
	if list, _ := h.s.List(); len(list) != 4 {
		t.Errorf("the folder as a list has %d entries", len(list))
	}
}

// TestAFileThatDoesNotOpenSaysWhy browses a folder with a broken TIFF far
// from the file shown: the thumbnails find it out; Alt+→ past it says in
// the status bar that it was skipped and why; a click on it selects it
// (the data shown stays) and says why it cannot be shown; Alt+→ from it
// goes on to the next file.
func TestAFileThatDoesNotOpenSaysWhy(t *testing.T) {
	dir, names := browseFolder(t)
	h := newHarness(t, Options{DiskRoot: "-"})
	a := filepath.Join(dir, "a.tif")
	h.s.Open(a)
	h.waitData(a)
	h.waitUpdate(func(Update) bool {
		list, _ := h.s.List()
		return len(list) == len(names) && list[2].Err != nil
	})
	list, _ := h.s.List()
	why := list[2].Err.Error()
	h.s.PressWith(KeyRight, Mods{Alt: true})
	h.waitData(filepath.Join(dir, "b.tif"))
	h.s.PressWith(KeyRight, Mods{Alt: true})
	h.waitData(filepath.Join(dir, "c2.tif"))
	if st := h.s.Status().Text; !strings.Contains(st, "skipped broken.tif ("+why+")") {
		t.Errorf("status after skipping broken.tif: %q", st)
	}
	h.s.OpenEntry(2)
	h.waitUpdate(func(Update) bool { _, pos := h.s.List(); return pos == 2 })
	if st := h.s.Status().Text; !strings.Contains(st, "broken.tif cannot be shown: "+why) {
		t.Errorf("status after a click on broken.tif: %q", st)
	}
	if d := h.s.Data(); d.Name != filepath.Join(dir, "c2.tif") {
		t.Errorf("%s shown after a click on broken.tif", d.Name)
	}
	if got := h.s.Title(); got != "vastview — broken.tif (cannot be shown) — 3/5" {
		t.Errorf("title %q", got)
	}
	if errs := h.eventsNamed("error"); len(errs) == 0 || !strings.Contains(errs[len(errs)-1]["message"].(string), "broken.tif cannot be shown") {
		t.Errorf("error events %v", errs)
	}
	h.s.PressWith(KeyRight, Mods{Alt: true})
	h.waitUpdate(func(Update) bool { _, pos := h.s.List(); return pos == 3 })
	if st := h.s.Status().Text; strings.Contains(st, "broken.tif") {
		t.Errorf("status still names broken.tif: %q", st)
	}
}

// TestAFolderAmongFilesIsAnEntry gives a DICOM series (a folder whose
// files have no extension) between two files: it is the second entry of
// the list, and Alt+→ goes from the first file to it, then to the last.
func TestAFolderAmongFilesIsAnEntry(t *testing.T) {
	series := testtool.SharedData(t, "dicom/CT5N_series")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.tif"), filepath.Join(dir, "b.tif")
	writeStack(t, a, 3, 10, 10, 5)
	writeStack(t, b, 3, 10, 10, 50)
	h := newHarness(t, Options{})
	h.s.OpenList([]string{a, series, b})
	h.waitData(a)
	list, pos := h.s.List()
	if got, want := strings.Join(listPaths(list), " "), strings.Join([]string{a, series, b}, " "); got != want || pos != 0 {
		t.Fatalf("list %s at %d, want %s", got, pos, want)
	}
	h.s.PressWith(KeyRight, Mods{Alt: true})
	h.waitData(series)
	if m := h.s.Meta(); m.Format != "dicom" || m.Size('Z') != 5 {
		t.Errorf("the series opened as %s %s %v", m.Format, m.Axes, m.Shape)
	}
	h.s.PressWith(KeyRight, Mods{Alt: true})
	h.waitData(b)
}

func TestADropOfUnsupportedFilesIsOneProblem(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.doc")
	os.WriteFile(a, []byte("x"), 0o644)
	os.WriteFile(b, []byte("y"), 0o644)
	h := newHarness(t, Options{})
	h.open(small(), "/data/volume.tif")
	h.s.OpenList([]string{a, b})
	u := h.waitUpdate(func(u Update) bool { return len(u.Problems) > 0 })
	msg := u.Problems[0].Err.Error()
	if len(u.Problems) != 1 || !strings.Contains(msg, "none of the 2 files") || !strings.Contains(msg, "a.txt") || !strings.Contains(msg, "b.doc") {
		t.Errorf("problems %v", u.Problems)
	}
	if d := h.s.Data(); d.Name != "/data/volume.tif" {
		t.Errorf("%s shown after a drop that did not open", d.Name)
	}
}

// TestThumbnailsAreMadeAndKept makes the thumbnails of a list, and finds
// them in the disk cache in a new session.
func TestThumbnailsAreMadeAndKept(t *testing.T) {
	dir, _ := browseFolder(t)
	cache := t.TempDir()
	root := filepath.Join(cache, "levels")
	h := newHarness(t, Options{DiskRoot: root})
	h.s.Open(filepath.Join(dir, "a.tif"))
	good := paths(dir, "a.tif", "b.tif", "c2.tif", "c10.tif")
	h.waitUpdate(func(Update) bool {
		for _, p := range good {
			if _, ok := h.s.Thumbnail(p); !ok {
				return false
			}
		}
		return true
	})
	img, _ := h.s.Thumbnail(good[0])
	if img == nil || img.Rect.Dx() != 60 || img.Rect.Dy() != 40 {
		t.Fatalf("thumbnail %v, want the 60×40 plane as it is (no larger than %d)", img.Bounds(), ThumbSize)
	}
	// Columns brighten left to right in every file.
	if l, r := img.Pix[4*(20*60+2)], img.Pix[4*(20*60+57)]; l >= r {
		t.Errorf("thumbnail left %d right %d", l, r)
	}
	kept, _ := filepath.Glob(filepath.Join(cache, "thumbs", "*.png"))
	if len(kept) != 4 {
		t.Errorf("%d thumbnails kept, want 4", len(kept))
	}
	h2 := newHarness(t, Options{DiskRoot: root})
	if got, _ := h2.s.thumbs.make(t.Context(), good[1]); got == nil || got.Rect != img.Rect {
		t.Errorf("the kept thumbnail reads back as %v", got)
	}
}

var _ = color.Gray{}

// TestBackgroundWorkWaitsWhileAKeyIsHeld holds a step key: work that waits
// for rest (the thumbnails) waits until the key is released.
func TestBackgroundWorkWaitsWhileAKeyIsHeld(t *testing.T) {
	clock := NewManualClock()
	h := newHarness(t, Options{Clock: clock})
	h.open(stored{demo.NewSized(1, 50, 32, 48)}, "/data/long.tif")
	h.s.KeyDown(KeyPeriod)
	clock.Advance(scrubDelay)
	if !h.s.Scrubbing() {
		t.Fatal("not scrubbing")
	}
	rested := make(chan bool)
	go func() { rested <- h.s.waitIdle(t.Context()) }()
	for range 5 { // steps go on meanwhile
		z := h.s.View().Z
		h.waitFrame(func(f *Frame) bool { return f.View.Z == z && f.Info.Unfilled == 0 })
		clock.Advance(scrubEvery)
	}
	select {
	case <-rested:
		t.Fatal("the work did not wait for the key to be released")
	default:
	}
	h.s.KeyUp(KeyPeriod)
	if !<-rested {
		t.Error("the work was told to stop")
	}
}

// twoImages is a file of two images of different shapes, as a LIF file's;
// the samples tell them apart.
type twoImages struct {
	stored
	meta *loader.Meta
}

func openTwoImages(i int) loader.Source {
	srcs := []loader.Source{stored{demo.NewSized(2, 9, 64, 96)}, stored{demo.NewSized(1, 5, 40, 30)}}
	metas := []*loader.Meta{srcs[0].Meta(), srcs[1].Meta()}
	m := *metas[i]
	m.Series, m.SeriesIndex = loader.SeriesList([]string{"overview", "detail"}, metas), i
	return &twoImages{stored: srcs[i].(stored), meta: &m}
}

func (s *twoImages) Meta() *loader.Meta { return s.meta }
func (s *twoImages) OpenSeries(_ context.Context, i int) (loader.Source, error) {
	return openTwoImages(i), nil
}

// TestTheImagesOfAFileAreBrowsed opens a file of two images: the first
// shows, in the file's place in its folder's list; Alt+PageDown shows the
// second (PATH#1) there, Alt+PageUp the first again, and the list keeps
// the image shown when another file is visited.
func TestTheImagesOfAFileAreBrowsed(t *testing.T) {
	dir := t.TempDir()
	writeStack(t, filepath.Join(dir, "a.tif"), 3, 20, 30, 100)
	multi := filepath.Join(dir, "m.tif")
	writeStack(t, multi, 3, 20, 30, 100)
	open := func(ctx context.Context, path string) (loader.Source, error) {
		if file, sel := loader.SplitSelector(path); file == multi {
			return loader.OpenSelected(ctx, openTwoImages(0), sel)
		}
		return loader.Open(ctx, path)
	}
	h := newHarness(t, Options{Open: open})
	h.s.Open(multi)
	h.waitData(multi)
	if list, cur := h.s.Series(); len(list) != 2 || cur != 0 || list[1].Name != "detail" {
		t.Fatalf("series %v, %d", list, cur)
	}
	h.s.PressWith(KeyPageDown, Mods{Alt: true})
	h.waitData(multi + "#1")
	if m := h.s.Meta(); m.SeriesIndex != 1 || m.Shape[len(m.Shape)-1] != 30 {
		t.Fatalf("series %d, shape %v", m.SeriesIndex, m.Shape)
	}
	h.waitUpdate(func(Update) bool { list, _ := h.s.List(); return len(list) == 2 })
	if list, pos := h.s.List(); pos != 1 || list[1].Path != multi+"#1" || list[0].Path != filepath.Join(dir, "a.tif") {
		t.Fatalf("list %v at %d", listPaths(list), pos)
	}
	h.s.PressWith(KeyPageDown, Mods{Alt: true}) // nothing after the last
	h.s.PressWith(KeyLeft, Mods{Alt: true})
	h.waitData(filepath.Join(dir, "a.tif"))
	h.s.PressWith(KeyRight, Mods{Alt: true})
	h.waitData(multi + "#1")
	h.s.PressWith(KeyPageUp, Mods{Alt: true})
	h.waitData(multi + "#0")
	if m := h.s.Meta(); m.SeriesIndex != 0 || m.Shape[len(m.Shape)-1] != 96 {
		t.Fatalf("series %d, shape %v", m.SeriesIndex, m.Shape)
	}
}

// TestDialogsStartBesideTheFileElseInTheLastFolder: with nothing shown
// the file dialogs start in the folder last used; with a file shown, in
// its folder; with an entry that cannot be shown selected, in its folder.
func TestDialogsStartBesideTheFileElseInTheLastFolder(t *testing.T) {
	dir, _ := browseFolder(t)
	last := t.TempDir()
	h := newHarness(t, Options{DiskRoot: "-"})
	h.s.Prefs().SetLastFolder(last)
	if got := h.s.DialogFolder(); got != last {
		t.Errorf("with nothing shown: %s, want %s", got, last)
	}
	h.s.Open(filepath.Join(dir, "a.tif"))
	h.waitData(filepath.Join(dir, "a.tif"))
	if got := h.s.DialogFolder(); got != dir {
		t.Errorf("with a.tif shown: %s, want %s", got, dir)
	}
	other := filepath.Join(t.TempDir(), "x.tif")
	os.WriteFile(other, []byte("II*\x00garbage"), 0o644)
	h.s.OpenFailed([]string{other}, loader.ErrFormat)
	if got := h.s.DialogFolder(); got != filepath.Dir(other) {
		t.Errorf("with x.tif selected: %s, want %s", got, filepath.Dir(other))
	}
}

// TestOpenFailedSelectsTheFileAndSaysWhy: a file that did not open on the
// command line is a Problem, selected among its folder's files with why.
func TestOpenFailedSelectsTheFileAndSaysWhy(t *testing.T) {
	dir, names := browseFolder(t)
	h := newHarness(t, Options{DiskRoot: "-"})
	broken := filepath.Join(dir, "broken.tif")
	h.s.OpenFailed([]string{broken}, loader.ErrFormat)
	u := h.waitUpdate(func(u Update) bool { return len(u.Problems) > 0 })
	if p := u.Problems[0]; p.Subject != "broken.tif" || p.Err != loader.ErrFormat {
		t.Errorf("problem %v", p)
	}
	h.waitUpdate(func(Update) bool { list, _ := h.s.List(); return len(list) == len(names) })
	list, pos := h.s.List()
	if pos != 2 || list[2].Err != loader.ErrFormat {
		t.Errorf("at %d, broken.tif marked %v", pos, list[2].Err)
	}
	if got := h.s.Title(); got != "vastview — broken.tif (cannot be shown) — 3/5" {
		t.Errorf("title %q", got)
	}
	if st := h.s.Status().Text; !strings.Contains(st, "broken.tif cannot be shown: "+loader.ErrFormat.Error()) {
		t.Errorf("status %q", st)
	}
}
