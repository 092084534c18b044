package nrrd

import (
	"bytes"
	"context"
	"encoding/binary"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/loader/internal/loadertest"
	"vastview/loader/internal/stream"
)

type nrrdCase struct {
	name   string
	spec   string // for loadertest.NumpyData
	header string // the header, without the magic line
	// layout: "attached", "detached" (data in data.raw), "list" / "pattern"
	// (data split into one file per slowest-axis step).
	layout  string
	prefix  string // bytes before the data (skipped by line/byte skip)
	suffix  string // bytes after the data file's data
	axes    string
	shape   []int
	dtype   loader.DType
	spacing []float64
	units   []string
	trans   []float64
}

var nrrdCases = []nrrdCase{
	{
		name: "uint16-raw-space", spec: `{"dtype": "uint16", "shape": [4, 5, 6]}`,
		header: "type: unsigned short\ndimension: 3\nspace: left-posterior-superior\nsizes: 6 5 4\n" +
			"space directions: (0.5,0,0) (0,0.7,0) (0,0,2)\nkinds: domain domain domain\n" +
			"endian: little\nencoding: raw\nspace origin: (10,-20,30.5)\nspace units: \"mm\" \"mm\" \"mm\"\n",
		layout: "attached", axes: "ZYX", shape: []int{4, 5, 6}, dtype: loader.Uint16,
		spacing: []float64{2, 0.7, 0.5}, units: []string{"millimeter", "millimeter", "millimeter"},
		trans: []float64{30.5, -20, 10},
	},
	{
		name: "float32-raw-bigendian", spec: `{"dtype": "float32", "shape": [3, 4, 5], "endian": ">"}`,
		header: "type: float\ndimension: 3\nsizes: 5 4 3\nspacings: 0.25 0.25 1.5\n" +
			"units: \"µm\" \"um\" \"micron\"\nendian: big\nencoding: raw\n# a comment\nkey:=value\n",
		layout: "attached", axes: "ZYX", shape: []int{3, 4, 5}, dtype: loader.Float32,
		spacing: []float64{1.5, 0.25, 0.25}, units: []string{"micrometer", "micrometer", "micrometer"},
	},
	{
		name: "int16-gzip-bigendian", spec: `{"dtype": "int16", "shape": [5, 6, 7], "endian": ">", "encoding": "gzip"}`,
		header: "type: short\ndimension: 3\nsizes: 7 6 5\nendian: big\nencoding: gzip\n",
		layout: "attached", axes: "ZYX", shape: []int{5, 6, 7}, dtype: loader.Int16,
	},
	{
		name: "int8-gzip-skips", spec: `{"dtype": "int8", "shape": [3, 6, 7], "encoding": "gzip", "pad": 5}`,
		header: "type: int8_t\ndimension: 3\nsizes: 7 6 3\nencoding: gz\nline skip: 2\nbyte skip: 5\ndata file: data.raw\n",
		layout: "detached", prefix: "two lines\nof preamble\n",
		axes: "ZYX", shape: []int{3, 6, 7}, dtype: loader.Int8,
	},
	{
		name: "float64-detached-skips", spec: `{"dtype": "float64", "shape": [3, 4, 5]}`,
		header: "type: double\ndimension: 3\nsizes: 5 4 3\nendian: little\nencoding: raw\n" +
			"data file: ./data.raw\nline skip: 1\nbyte skip: 3\n",
		layout: "detached", prefix: "P5 junk line\nabc", suffix: "trailing",
		axes: "ZYX", shape: []int{3, 4, 5}, dtype: loader.Float64,
	},
	{
		name: "uint32-byteskip-end", spec: `{"dtype": "uint32", "shape": [2, 3, 4], "endian": ">"}`,
		header: "type: uint32\ndimension: 3\nsizes: 4 3 2\nendian: big\nencoding: raw\n" +
			"data file: data.raw\nbyte skip: -1\n",
		layout: "detached", prefix: "some header bytes of another format",
		axes: "ZYX", shape: []int{2, 3, 4}, dtype: loader.Uint32,
	},
	{
		name: "int32-list", spec: `{"dtype": "int32", "shape": [4, 3, 5]}`,
		header: "type: int\ndimension: 3\nsizes: 5 3 4\nendian: little\nencoding: raw\n" +
			"data file: LIST\nslice0.raw\nslice1.raw\nslice2.raw\nslice3.raw\n",
		layout: "list", axes: "ZYX", shape: []int{4, 3, 5}, dtype: loader.Int32,
	},
	{
		name: "uint8-pattern", spec: `{"dtype": "uint8", "shape": [4, 3, 5]}`,
		header: "type: uchar\ndimension: 3\nsizes: 5 3 4\nencoding: raw\n" +
			"data file: slice%03d.raw 1 4 1 2\n",
		layout: "pattern", axes: "ZYX", shape: []int{4, 3, 5}, dtype: loader.Uint8,
	},
	{
		name: "rgb-interleaved", spec: `{"dtype": "uint8", "shape": [2, 3, 4, 5], "perm": [0, 2, 3, 1]}`,
		header: "type: uint8\ndimension: 4\nsizes: 3 5 4 2\nkinds: RGB-color domain domain domain\n" +
			"spacings: nan 0.5 0.5 2\nencoding: raw\n",
		layout: "attached", axes: "ZCYX", shape: []int{2, 3, 4, 5}, dtype: loader.Uint8,
		spacing: []float64{2, 1, 0.5, 0.5},
	},
	{
		name: "vector-guess-bzip2-bigendian", spec: `{"dtype": "uint16", "shape": [3, 2, 4, 5], "perm": [0, 2, 3, 1], "endian": ">", "encoding": "bzip2"}`,
		header: "type: ushort\ndimension: 4\nsizes: 2 5 4 3\nendian: big\nencoding: bzip2\n",
		layout: "attached", axes: "ZCYX", shape: []int{3, 2, 4, 5}, dtype: loader.Uint16,
	},
	{
		name: "time-kinds", spec: `{"dtype": "float32", "shape": [3, 2, 4, 5]}`,
		header: "type: float\ndimension: 4\nsizes: 5 4 2 3\nkinds: space space space time\n" +
			"spacings: 1 1 3 0.5\nunits: \"\" \"\" \"\" \"s\"\nendian: little\nencoding: raw\n",
		layout: "attached", axes: "TZYX", shape: []int{3, 2, 4, 5}, dtype: loader.Float32,
		spacing: []float64{0.5, 3, 1, 1}, units: []string{"second", "", "", ""},
	},
	{
		name: "list-kind-slowest-planar", spec: `{"dtype": "int16", "shape": [3, 2, 4, 5]}`,
		header: "type: int16\ndimension: 4\nsizes: 5 4 2 3\nkinds: domain domain domain list\n" +
			"endian: little\nencoding: raw\n",
		layout: "attached", axes: "CZYX", shape: []int{3, 2, 4, 5}, dtype: loader.Int16,
	},
	{
		name: "5d-channels-time", spec: `{"dtype": "uint8", "shape": [2, 3, 3, 4, 5], "perm": [0, 1, 3, 4, 2]}`,
		header: "type: uchar\ndimension: 5\nsizes: 3 5 4 3 2\nkinds: 3-vector space space space time\nencoding: raw\n",
		layout: "attached", axes: "TZCYX", shape: []int{2, 3, 3, 4, 5}, dtype: loader.Uint8,
	},
	{
		name: "ascii-2d", spec: `{"dtype": "float32", "shape": [6, 7], "encoding": "ascii"}`,
		header: "type: float\ndimension: 2\nsizes: 7 6\nencoding: ascii\n",
		layout: "attached", axes: "YX", shape: []int{6, 7}, dtype: loader.Float32,
	},
	{
		name: "hex-bigendian", spec: `{"dtype": "int32", "shape": [2, 6, 7], "encoding": "hex", "endian": ">"}`,
		header: "type: int32\ndimension: 3\nsizes: 7 6 2\nendian: big\nencoding: hex\n",
		layout: "attached", axes: "ZYX", shape: []int{2, 6, 7}, dtype: loader.Int32,
	},
}

func TestNumpyFixtures(t *testing.T) {
	for _, c := range nrrdCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			data, want := loadertest.NumpyData(t, c.spec, dir)
			path := writeFixture(t, dir, c, data)
			checkCase(t, c, path, want)
		})
	}
}

// writeFixture writes the NRRD file(s) of case c around the data bytes and
// returns the path to open.
func writeFixture(t *testing.T, dir string, c nrrdCase, data []byte) string {
	header := "NRRD0005\n" + c.header
	switch c.layout {
	case "attached":
		path := filepath.Join(dir, "a.nrrd")
		loadertest.WriteFile(t, path, append([]byte(header+"\n"), data...))
		return path
	case "detached":
		loadertest.WriteFile(t, filepath.Join(dir, "data.raw"), []byte(c.prefix+string(data)+c.suffix))
	default:
		n := c.shape[0]
		size := len(data) / n
		for i := 0; i < n; i++ {
			name := "slice" + string(rune('0'+i)) + ".raw"
			if c.layout == "pattern" {
				name = "slice00" + string(rune('1'+i)) + ".raw"
			}
			loadertest.WriteFile(t, filepath.Join(dir, name), data[i*size:(i+1)*size])
		}
	}
	path := filepath.Join(dir, "h.nhdr")
	loadertest.WriteFile(t, path, []byte(header))
	return path
}

func checkCase(t *testing.T, c nrrdCase, path string, want []byte) {
	loadertest.Expect(t, path, loadertest.Want{Format: "nrrd", Axes: c.axes, Shape: c.shape, DType: c.dtype,
		Spacing: c.spacing, Units: c.units, Translation: c.trans, DataFiles: dataFilesOf(c, filepath.Dir(path)), Samples: want})
}

// dataFilesOf returns the data files writeFixture wrote for c in dir,
// other than the header.
func dataFilesOf(c nrrdCase, dir string) []string {
	switch c.layout {
	case "detached":
		return []string{filepath.Join(dir, "data.raw")}
	case "list", "pattern":
		var files []string
		for i := 0; i < c.shape[0]; i++ {
			name := "slice" + string(rune('0'+i)) + ".raw"
			if c.layout == "pattern" {
				name = "slice00" + string(rune('1'+i)) + ".raw"
			}
			files = append(files, filepath.Join(dir, name))
		}
		return files
	}
	return nil
}

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	base := "NRRD0004\ntype: uint16\ndimension: 3\nsizes: 4 3 2\nendian: little\nencoding: raw\n"
	data := strings.Repeat("\x01\x02", 24)
	cases := []struct {
		name, file string
		unsupp     bool
		want       string
	}{
		{"truncated", base + "\n" + data[:40], false, "truncated"},
		{"no blank line", base, false, "blank line"},
		{"huge sizes", strings.Replace(base, "4 3 2", "30000 30000 1000", 1) + "\n" + data, false, "truncated"},
		{"absurd sizes", strings.Replace(base, "4 3 2", "4000000000 4000000000 4000000000", 1) + "\n" + data, false, "too large"},
		{"zero size", strings.Replace(base, "4 3 2", "4 0 2", 1) + "\n" + data, false, "size 0"},
		{"negative size", strings.Replace(base, "4 3 2", "4 -3 2", 1) + "\n" + data, false, "size -3"},
		{"sizes count", strings.Replace(base, "4 3 2", "4 3", 1) + "\n" + data, false, "sizes"},
		{"no type", strings.Replace(base, "type: uint16\n", "", 1) + "\n" + data, false, "type"},
		{"bad type", strings.Replace(base, "uint16", "quaternion", 1) + "\n" + data, false, "type"},
		{"no endian", strings.Replace(base, "endian: little\n", "", 1) + "\n" + data, false, "endian"},
		{"zrl", strings.Replace(base, "raw", "zrl", 1) + "\n" + data, true, "encoding"},
		{"1-D", strings.Replace(strings.Replace(base, "3\n", "1\n", 1), "4 3 2", "48", 1) + "\n" + data, true, "1-dimensional"},
		{"gzip garbage", strings.Replace(base, "raw", "gzip", 1) + "\n" + data, false, "gzip"},
		{"gzip too small", strings.Replace(strings.Replace(base, "raw", "gzip", 1), "4 3 2", "4000 3000 2000", 1) + "\n\x1f\x8b", false, "cannot hold"},
		{"missing data file", base + "data file: nothere.raw\n", false, "nothere.raw"},
		{"bad pattern", base + "data file: s%s.raw 1 2 1\n", false, "pattern"},
		{"list count", base + "data file: LIST\na.raw\n", false, "data files"},
		{"bad directions", base + "space directions: (1,0,0) (0,1\n\n" + data, false, "space directions"},
		{"long line", base + "content: " + strings.Repeat("x", stream.MaxHeader) + "\n\n" + data, false, "longer"},
		{"not a field", base + "garbage line\n\n" + data, false, "not a field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".nrrd")
			loadertest.WriteFile(t, path, []byte(c.file))
			loadertest.BadFile(t, path, Open, true, c.unsupp, c.want)
		})
	}
}

func TestMatch(t *testing.T) {
	for head, want := range map[string]bool{
		"NRRD0004\ntype: float\n": true, "NRRD0001\r\n": true, "NRRD0004": true,
		"NRRD004\n": false, "NRRDX004\n": false, "ObjectType = Image\n": false, "": false,
	} {
		if got := Match("x.bin", []byte(head)); got != want {
			t.Errorf("Match(%q) = %v", head, got)
		}
	}
}

// Test64BitSamples reads int64 and uint64 volumes, raw in either byte
// order and as text, with values a float64 cannot hold, exactly.
func Test64BitSamples(t *testing.T) {
	dir := t.TempDir()
	vals := []uint64{1<<60 + 1, 1<<60 + 2, 1 << 63, 1<<64 - 1, 0, uint64(1<<63 - 1)}
	le := make([]byte, 8*len(vals))
	be := make([]byte, 8*len(vals))
	var text []string
	for i, v := range vals {
		binary.LittleEndian.PutUint64(le[8*i:], v)
		binary.BigEndian.PutUint64(be[8*i:], v)
		text = append(text, strconv.FormatUint(v, 10))
	}
	for _, c := range []struct {
		name, typ, endian, encoding string
		data                        string
		dt                          loader.DType
	}{
		{"i64be", "int64", "big", "raw", string(be), loader.Int64},
		{"u64le", "unsigned long long", "little", "raw", string(le), loader.Uint64},
		{"u64text", "uint64_t", "little", "text", strings.Join(text, " "), loader.Uint64},
	} {
		path := filepath.Join(dir, c.name+".nrrd")
		loadertest.WriteFile(t, path, []byte("NRRD0004\ntype: "+c.typ+"\ndimension: 3\nsizes: 3 2 1\nendian: "+c.endian+
			"\nencoding: "+c.encoding+"\n\n"+c.data))
		src, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := loader.ReadAll(context.Background(), src, 0, 1<<20)
		src.Close()
		if err != nil || src.Meta().DType != c.dt || !bytes.Equal(got, le) {
			t.Errorf("%s: %v %v, samples %x, want %x", c.name, src.Meta().DType, err, got, le)
		}
	}
}
