package zarr

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vastview/loader"
)

func TestMatch(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "img.zarr")
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	writeFile(t, filepath.Join(img, ".zattrs"), []byte("{}"))
	v3 := filepath.Join(dir, "v3")
	writeFile(t, filepath.Join(v3, "zarr.json"), []byte("{}"))
	for _, c := range []struct {
		path string
		head []byte
		want bool
	}{
		{img, nil, true}, {v3, nil, true}, {empty, nil, false},
		{filepath.Join(img, ".zattrs"), []byte("{}"), false},
		{"http://example.org/a.zarr", nil, true}, {"HTTPS://example.org/a", nil, true},
		{"https://bucket.example.org/a.zarr?X-Amz-Signature=abc&token=t", nil, true}, // not a pattern
		{filepath.Join(dir, "*.zarr"), nil, false},
	} {
		if got := Match(c.path, c.head); got != c.want {
			t.Errorf("Match(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestKeys(t *testing.T) {
	v2dot, _ := keyEncodingV2("")
	v2slash, _ := keyEncodingV2("/")
	v3def, _ := keyEncodingV3(nil)
	v3dot, _ := keyEncodingV3(json.RawMessage(`{"name": "default", "configuration": {"separator": "."}}`))
	v3v2, _ := keyEncodingV3(json.RawMessage(`{"name": "v2"}`))
	for _, c := range []struct {
		enc  keyEncoding
		dir  string
		idx  []int
		want string
	}{
		{v2dot, "0/", []int{1, 22, 3}, "0/1.22.3"}, {v2slash, "", []int{1, 2}, "1/2"},
		{v3def, "s0/", []int{0, 5, 12}, "s0/c/0/5/12"}, {v3def, "", nil, "c"},
		{v3dot, "", []int{3, 4}, "c.3.4"}, {v3v2, "a/b/", []int{7, 0}, "a/b/7.0"}, {v3v2, "", nil, "0"},
	} {
		if got := c.enc.key(c.dir, c.idx); got != c.want {
			t.Errorf("key %v = %q, want %q", c.idx, got, c.want)
		}
	}
	if _, err := keyEncodingV2("-"); !isFormat(err) {
		t.Errorf("separator -: %v", err)
	}
	if _, err := keyEncodingV3(json.RawMessage(`{"name": "custom"}`)); !isUnsupported(err) {
		t.Errorf("custom encoding: %v", err)
	}
}

func TestFillValues(t *testing.T) {
	f32 := func(f float32) []byte { return binary.LittleEndian.AppendUint32(nil, math.Float32bits(f)) }
	f64 := func(f float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)) }
	st := func(d loader.DType) sampleType { return sampleType{dt: d} }
	for _, c := range []struct {
		raw  string
		st   sampleType
		want []byte
	}{
		{`null`, st(loader.Uint16), []byte{0, 0}}, {``, st(loader.Int32), []byte{0, 0, 0, 0}},
		{`300`, st(loader.Uint16), []byte{44, 1}}, {`-2`, st(loader.Int16), []byte{0xfe, 0xff}},
		{`255.0`, st(loader.Uint8), []byte{255}}, {`-2147483648`, st(loader.Int32), []byte{0, 0, 0, 0x80}},
		{`4294967295`, st(loader.Uint32), []byte{255, 255, 255, 255}},
		{`9007199254740993`, st(loader.Uint64), []byte{1, 0, 0, 0, 0, 0, 0x20, 0}},
		{`18446744073709551615`, st(loader.Uint64), []byte{255, 255, 255, 255, 255, 255, 255, 255}},
		{`-9223372036854775807`, st(loader.Int64), []byte{1, 0, 0, 0, 0, 0, 0, 0x80}},
		{`1e3`, st(loader.Int64), []byte{0xe8, 3, 0, 0, 0, 0, 0, 0}},
		{`1.5`, st(loader.Float32), f32(1.5)}, {`-0.25`, st(loader.Float64), f64(-0.25)},
		{`"NaN"`, st(loader.Float32), []byte{0, 0, 0xc0, 0x7f}},
		{`"NaN"`, st(loader.Float64), []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}},
		{`"Infinity"`, st(loader.Float64), f64(math.Inf(1))}, {`"-Infinity"`, st(loader.Float32), f32(float32(math.Inf(-1)))},
		{`"0x3fc00000"`, st(loader.Float32), f32(1.5)}, {`"0x7ff8000000000001"`, st(loader.Float64), []byte{1, 0, 0, 0, 0, 0, 0xf8, 0x7f}},
		{`true`, sampleType{dt: loader.Uint8, bool: true}, []byte{1}}, {`false`, sampleType{dt: loader.Uint8, bool: true}, []byte{0}},
	} {
		got, err := fillValue(json.RawMessage(c.raw), c.st)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("fill %s as %v: %v %v, want %v", c.raw, c.st.dt, got, err, c.want)
		}
	}
	for _, c := range []struct {
		raw string
		dt  loader.DType
	}{{`256`, loader.Uint8}, {`-1`, loader.Uint16}, {`-1`, loader.Uint64},
		{`18446744073709551616`, loader.Uint64}, {`9223372036854775808`, loader.Int64}, {`4294967296`, loader.Uint32}, {`1.5`, loader.Int32}, {`"NaN"`, loader.Int16},
		{`"0x3fc0"`, loader.Float32}, {`"0xzz"`, loader.Float64}, {`[1]`, loader.Uint8}, {`"Inf"`, loader.Float32}} {
		if _, err := fillValue(json.RawMessage(c.raw), st(c.dt)); !isFormat(err) {
			t.Errorf("fill %s as %v: %v, want a FormatError", c.raw, c.dt, err)
		}
	}
}

func TestDTypes(t *testing.T) {
	for s, want := range map[string]sampleType{
		`"|u1"`: {dt: loader.Uint8}, `"|i1"`: {dt: loader.Int8}, `"|b1"`: {dt: loader.Uint8, bool: true},
		`"<u2"`: {dt: loader.Uint16}, `">u2"`: {dt: loader.Uint16, big: true}, `"<i2"`: {dt: loader.Int16},
		`"<u4"`: {dt: loader.Uint32}, `"<i4"`: {dt: loader.Int32}, `"<f4"`: {dt: loader.Float32},
		`">f4"`: {dt: loader.Float32, big: true}, `"<f8"`: {dt: loader.Float64}, `">i1"`: {dt: loader.Int8},
		`"<u8"`: {dt: loader.Uint64}, `">i8"`: {dt: loader.Int64, big: true},
	} {
		got, err := dtypeV2(json.RawMessage(s))
		if err != nil || got != want {
			t.Errorf("dtype %s: %+v %v, want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{`"<c16"`, `"<f2"`, `"<M8[ns]"`, `"|S4"`, `[["a", "<u2"]]`} {
		if _, err := dtypeV2(json.RawMessage(s)); !isUnsupported(err) {
			t.Errorf("dtype %s: %v, want unsupported", s, err)
		}
	}
	for s, want := range map[string]sampleType{`"uint8"`: {dt: loader.Uint8}, `"bool"`: {dt: loader.Uint8, bool: true},
		`"int16"`: {dt: loader.Int16}, `"float64"`: {dt: loader.Float64}, `"uint64"`: {dt: loader.Uint64},
		`"int64"`: {dt: loader.Int64}} {
		if got, err := dtypeV3(json.RawMessage(s)); err != nil || got != want {
			t.Errorf("data type %s: %+v %v", s, got, err)
		}
	}
	for _, s := range []string{`"complex64"`, `"float16"`, `"r16"`, `{"name": "datetime"}`} {
		if _, err := dtypeV3(json.RawMessage(s)); !isUnsupported(err) {
			t.Errorf("data type %s: %v, want unsupported", s, err)
		}
	}
}

// TestAxes maps OME-NGFF axes and dimension names to axis letters.
func TestAxes(t *testing.T) {
	ax := func(s string) []ngffAxis {
		var a []ngffAxis
		if err := json.Unmarshal([]byte(s), &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, c := range []struct {
		axes  string
		ndim  int
		want  string
		units []string
	}{
		{`[{"name": "t", "type": "time", "unit": "second"}, {"name": "ch", "type": "channel"}, {"name": "z", "type": "space"},
			{"name": "Y", "type": "space", "unit": "micrometer"}, {"name": "x", "type": "space", "unit": "micrometer"}]`,
			5, "TCZYX", []string{"second", "", "", "micrometer", "micrometer"}},
		{`["c", "y", "x"]`, 3, "CYX", []string{"", "", ""}},
		{`[{"name": "z"}, {"name": "c", "type": "channel"}, {"name": "y"}, {"name": "x"}]`, 4, "ZCYX", []string{"", "", "", ""}},
		{`[]`, 5, "TCZYX", make([]string, 5)}, {`[]`, 2, "YX", make([]string, 2)}, {`[]`, 4, "CZYX", make([]string, 4)},
	} {
		got, units, err := axisLetters(ax(c.axes), c.ndim)
		if err != nil || got != c.want || !reflect.DeepEqual(units, c.units) {
			t.Errorf("axes %s: %q %q %v, want %q %q", c.axes, got, units, err, c.want, c.units)
		}
	}
	for _, s := range []string{`[{"name": "y", "type": "space"}, {"name": "angle", "type": "space"}]`,
		`[{"name": "q", "type": "foo"}, {"name": "y"}, {"name": "x"}]`,
		`[{"name": "y"}, {"name": "x"}, {"name": "z"}]`} {
		if _, _, err := axisLetters(ax(s), 2); !isUnsupported(err) {
			t.Errorf("axes %s: %v, want unsupported", s, err)
		}
	}
	if _, _, err := axisLetters(ax(`[{"name": "y"}, {"name": "y"}]`), 2); !isFormat(err) {
		t.Errorf("repeated axis: %v", err)
	}
	for _, c := range []struct {
		names []string
		want  string
	}{{[]string{"t", "z", "y", "x"}, "TZYX"}, {[]string{"C", "Y", "X"}, "CYX"}, {[]string{"x", "y"}, "YX"},
		{[]string{"a", "b", "y", "x"}, "CZYX"}, {nil, "ZYX"}, {[]string{"y", "y", "x"}, "ZYX"}} {
		if got, err := axesByNames(c.names, 2+len(c.want)-2); err != nil || got != c.want {
			t.Errorf("names %q: %q %v, want %q", c.names, got, err, c.want)
		}
	}
	if _, err := axesByNames(nil, 6); !isUnsupported(err) {
		t.Errorf("6-D: %v", err)
	}
}

// TestGeometry combines dataset and multiscale transformations.
func TestGeometry(t *testing.T) {
	ds := []transform{{Type: "scale", Scale: []float64{2, 0.5}}, {Type: "translation", Translation: []float64{1, -3}}}
	ms := []transform{{Type: "scale", Scale: []float64{10, 2}}, {Type: "translation", Translation: []float64{0.5, 0}}}
	scale, trans, err := geometry(ds, ms, 2)
	// x_phys = 10*(2*i + 1) + 0.5 along the first axis, 2*(0.5*i - 3) along the second.
	if err != nil || !close(scale, []float64{20, 1}) || !close(trans, []float64{10.5, -6}) {
		t.Errorf("scale %v translation %v %v", scale, trans, err)
	}
	if _, _, err := geometry([]transform{{Type: "scale", Path: json.RawMessage(`"s.bin"`)}}, nil, 2); !isUnsupported(err) {
		t.Errorf("scale in a file: %v", err)
	}
	if _, _, err := geometry([]transform{{Type: "affine"}}, nil, 2); !isUnsupported(err) {
		t.Errorf("affine: %v", err)
	}
	sc, tr := impliedGeometry([]int{3, 37, 101}, []int{3, 19, 50})
	if !close(sc, []float64{1, 2, 2}) || !close(tr, []float64{0, 0.5, 0.5}) {
		t.Errorf("implied geometry %v %v", sc, tr)
	}
}

func TestChannelsAndPalette(t *testing.T) {
	var o omero
	json.Unmarshal([]byte(`{"channels": [{"label": "a", "color": "#00FF00", "window": {"start": 1, "end": 2}},
		{"label": "b", "color": "nothex", "window": {"start": 5}}, {"label": "c", "color": "FF000080"}]}`), &o)
	got := o.channels(2)
	want := []loader.Channel{{Label: "a", Color: [3]uint8{0, 255, 0}, HasColor: true, Lo: 1, Hi: 2, HasWindow: true}, {Label: "b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("channels %+v, want %+v", got, want)
	}
	if got := o.channels(4); len(got) != 4 || got[2].Color != [3]uint8{255, 0, 0} || got[3] != (loader.Channel{}) {
		t.Errorf("channels for 4: %+v", got)
	}
	var l imageLabel
	json.Unmarshal([]byte(`{"colors": [{"label-value": 2, "rgba": [10, 20, 30, 255]}, {"label-value": 70000, "rgba": [1, 1, 1, 1]},
		{"label-value": -1, "rgba": [1, 1, 1]}, {"label-value": 1.5, "rgba": [1, 1, 1]}, {"label-value": 3, "rgba": [300, -5]}]}`), &l)
	pal := l.palette()
	if want := [][3]uint16{{}, {}, {10 * 0x101, 20 * 0x101, 30 * 0x101}}; !reflect.DeepEqual(pal, want) {
		t.Errorf("palette %v, want %v", pal, want)
	}
}

// TestIndexCache keeps the cache within its byte budget, most recent
// entries kept.
func TestIndexCache(t *testing.T) {
	c := newIndexCache(3 * (8*100 + 64 + 2))
	for i := range 5 {
		c.put("k"+itoa(i), make(shardIndex, 100))
	}
	if c.get("k0") != nil || c.get("k1") != nil || c.get("k4") == nil || c.get("k2") == nil {
		t.Error("least recently used entries not the ones evicted")
	}
	c.put("k5", make(shardIndex, 100)) // evicts k3, the least recent now
	if c.get("k3") != nil || c.get("k2") == nil {
		t.Error("use does not refresh an entry")
	}
	ix := c.get("k2")
	c.drop("k2", make(shardIndex, 1))
	if c.get("k2") == nil {
		t.Error("dropping another index removed the entry")
	}
	c.drop("k2", ix)
	if c.get("k2") != nil {
		t.Error("entry not dropped")
	}
	c.put("huge", make(shardIndex, 1000))
	if c.get("huge") != nil || c.used() > c.max {
		t.Errorf("over budget: %d of %d", c.used(), c.max)
	}
}

// TestOmeroVisibilityAndModel reads "active" and rdefs.model, and leaves
// out, without failing, the parts of omero that have the wrong JSON type.
func TestOmeroVisibilityAndModel(t *testing.T) {
	a, err := parseAttrs([]byte(`{"omero": {"channels": [
		{"label": "a", "active": false},
		{"label": "b", "active": true},
		{"label": "c", "active": null, "window": {"start": null, "end": 4}},
		{"label": 5, "color": {"r": 1}, "active": "no", "window": [1, 2]},
		"not an object",
		{"label": "f", "color": "00FF00", "window": {"start": 1, "end": 2}}],
		"rdefs": {"model": "greyscale"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := a.Omero.channels(6)
	want := []loader.Channel{{Label: "a", Hidden: true}, {Label: "b"}, {Label: "c"}, {}, {},
		{Label: "f", Color: [3]uint8{0, 255, 0}, HasColor: true, Lo: 1, Hi: 2, HasWindow: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("channels %+v, want %+v", got, want)
	}
	if m := a.Omero.mode(); m != loader.ChannelsGray {
		t.Errorf("mode %q", m)
	}
	for doc, mode := range map[string]string{
		`{"omero": {"rdefs": {"model": "color"}}}`:     loader.ChannelsComposite,
		`{"omero": {"rdefs": {"model": "Colour"}}}`:    loader.ChannelsComposite,
		`{"omero": {"rdefs": {"model": "grayscale"}}}`: loader.ChannelsGray,
		`{"omero": {"rdefs": {"model": "hsb"}}}`:       "",
		`{"omero": {"rdefs": {"model": 3}}}`:           "",
		`{"omero": {"rdefs": "color"}}`:                "",
		`{"omero": {"channels": 7}}`:                   "",
		`{"omero": "color"}`:                           "",
		`{"omero": null}`:                              "",
		`{}`:                                           "",
	} {
		a, err := parseAttrs([]byte(doc))
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		if m := a.Omero.mode(); m != mode {
			t.Errorf("%s: mode %q, want %q", doc, m, mode)
		}
		if c := a.Omero.channels(2); c != nil {
			t.Errorf("%s: channels %+v", doc, c)
		}
	}
	// Only the first maxChannels channels are read.
	doc := `{"omero": {"channels": [` + strings.Repeat(`{"label": "x"},`, maxChannels+10) + `{}]}}`
	if a, err := parseAttrs([]byte(doc)); err != nil || len(a.Omero.Channels) != maxChannels {
		t.Errorf("%v: %d channels kept of %d", err, len(a.Omero.Channels), maxChannels+11)
	}
}
