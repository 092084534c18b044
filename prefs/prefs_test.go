package prefs

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

func TestRecentKeepsTenMostRecentFirst(t *testing.T) {
	p := New(&MapStore{})
	for i := 0; i < 12; i++ {
		p.AddRecent(fmt.Sprintf("/data/f%d.tif", i))
	}
	p.AddRecent("/data/f5.tif")
	r := p.Recent()
	if len(r) != MaxRecent || r[0] != "/data/f5.tif" || r[1] != "/data/f11.tif" || slices.Contains(r, "/data/f1.tif") {
		t.Fatalf("recent %v", r)
	}
	if n := len(slices.DeleteFunc(slices.Clone(r), func(s string) bool { return s != "/data/f5.tif" })); n != 1 {
		t.Errorf("f5 appears %d times", n)
	}
}

func TestViewRoundTripsPerFile(t *testing.T) {
	s := &MapStore{}
	p := New(s)
	v := View{Plane: "xz", T: 2, Z: 7, Y: 100, Zoom: 2.5, CenterX: 10.5, CenterY: 3, Lo: 100, Hi: 4000, Colormap: "magma"}
	p.SetView("/data/a.tif", v)
	// A new Prefs over the same store, as after a restart.
	got, ok := New(s).View("/data/a.tif")
	if !ok || !reflect.DeepEqual(got, v) {
		t.Fatalf("got %+v %v, want %+v", got, ok, v)
	}
	if _, ok := p.View("/data/b.tif"); ok {
		t.Error("a view for a file never saved")
	}
	s.SetString(viewKey("/data/c.tif"), "{broken")
	if _, ok := p.View("/data/c.tif"); ok {
		t.Error("a damaged entry was accepted")
	}
}

func TestBudgets(t *testing.T) {
	p := New(&MapStore{})
	if p.CacheBytes() != 0 || p.DiskCacheBytes() != DefaultDiskCacheBytes {
		t.Errorf("defaults %d %d", p.CacheBytes(), p.DiskCacheBytes())
	}
	p.SetCacheBytes(1 << 30)
	p.SetDiskCacheBytes(5 << 30)
	if p.CacheBytes() != 1<<30 || p.DiskCacheBytes() != 5<<30 {
		t.Errorf("set %d %d", p.CacheBytes(), p.DiskCacheBytes())
	}
}

func TestPanelHiddenIsRemembered(t *testing.T) {
	store := &MapStore{}
	p := New(store)
	if p.PanelHidden("histogram") {
		t.Fatal("a panel starts hidden")
	}
	p.SetPanelHidden("histogram", true)
	if q := New(store); !q.PanelHidden("histogram") || q.PanelHidden("strip") {
		t.Fatal("the hidden histogram is not remembered alone")
	}
	p.SetPanelHidden("histogram", false)
	if p.PanelHidden("histogram") {
		t.Fatal("shown again, the histogram is still hidden")
	}
}
