package prefs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func openFile(t *testing.T, path, older string) *FileStore {
	t.Helper()
	s, err := OpenFile(path, older)
	if err != nil {
		t.Fatal(err)
	}
	s.OnError = func(err error) { t.Error(err) }
	return s
}

// What is set is in the file at once, as JSON, and read again after a
// restart; the view of a file with it.
func TestFileStoreKeepsEachChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vastview", "preferences.json")
	s := openFile(t, path, "")
	p := New(s)
	p.SetPanelHidden("histogram", true)
	v := View{Plane: "xz", Z: 7, Zoom: 2.5, Lo: 100, Hi: 4000, Colormap: "magma"}
	p.SetView("/data/a.tif", v)
	var onDisk map[string]string
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &onDisk); err != nil || onDisk["hidden:histogram"] != "true" {
		t.Fatalf("the file holds %q (%v), want the hidden histogram", b, err)
	}
	p2 := New(openFile(t, path, ""))
	if !p2.PanelHidden("histogram") {
		t.Error("the hidden histogram was not read again")
	}
	if got, ok := p2.View("/data/a.tif"); !ok || got.Plane != "xz" || got.Colormap != "magma" {
		t.Errorf("view read again %+v %v", got, ok)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	if len(left) != 1 {
		t.Errorf("the folder holds %v, want the file alone", left)
	}
}

// Two viewers open at once keep each other's changes, and each sees the
// other's.
func TestFileStoresOfTwoProcessesMerge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "preferences.json")
	a, b := openFile(t, path, ""), openFile(t, path, "")
	a.SetString("x", "1")
	b.SetString("y", "2")
	if got := a.String("y"); got != "2" {
		t.Errorf("a reads y = %q, want b's 2", got)
	}
	a.SetString("y", "3")
	if got := b.String("y"); got != "3" {
		t.Errorf("b reads y = %q, want a's later 3", got)
	}
	c := openFile(t, path, "")
	if c.String("x") != "1" || c.String("y") != "3" {
		t.Errorf("reopened: x %q, y %q; want 1 and 3", c.String("x"), c.String("y"))
	}

	// Many changes at once from both: none lost.
	var wg sync.WaitGroup
	for i, s := range []*FileStore{a, b} {
		wg.Go(func() {
			for k := range 40 {
				s.SetString(fmt.Sprintf("k%d-%d", i, k), "v")
			}
		})
	}
	wg.Wait()
	d := openFile(t, path, "")
	for i := range 2 {
		for k := range 40 {
			if d.String(fmt.Sprintf("k%d-%d", i, k)) != "v" {
				t.Fatalf("k%d-%d lost", i, k)
			}
		}
	}
}

// With no file yet, an older version's preferences (Fyne's file, whose
// values are of more kinds than strings) are what the store holds,
// written at once; with a file, they are not read.
func TestFileStoreStartsFromTheOlderFile(t *testing.T) {
	dir := t.TempDir()
	path, older := filepath.Join(dir, "vastview", "preferences.json"), filepath.Join(dir, "fyne", "preferences.json")
	os.MkdirAll(filepath.Dir(older), 0o755)
	if err := os.WriteFile(older, []byte(`{"recent":"[\"/data/a.tif\"]","n":3,"list":["a"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openFile(t, path, older)
	if got := New(s).Recent(); len(got) != 1 || got[0] != "/data/a.tif" {
		t.Errorf("recent %v", got)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the store was not written at once: %v", err)
	}
	os.WriteFile(older, []byte(`{"recent":"[\"/other\"]"}`), 0o644)
	if got := openFile(t, path, older).String("recent"); got != `["/data/a.tif"]` {
		t.Errorf("with a file, the older one was read again: %q", got)
	}
}

// A damaged file is kept aside, not overwritten, and the store starts
// empty and works.
func TestFileStoreMovesADamagedFileAside(t *testing.T) {
	path := filepath.Join(t.TempDir(), "preferences.json")
	if err := os.WriteFile(path, []byte(`{"recent": "x", `), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFile(path, "")
	if err == nil || !strings.Contains(err.Error(), path+".unreadable") {
		t.Fatalf("error %v, want one naming where the file is kept", err)
	}
	if b, _ := os.ReadFile(path + ".unreadable"); string(b) != `{"recent": "x", ` {
		t.Errorf("kept aside: %q", b)
	}
	s.SetString("a", "b")
	if got := openFile(t, path, "").String("a"); got != "b" {
		t.Errorf("after the damaged file, a = %q", got)
	}
}
