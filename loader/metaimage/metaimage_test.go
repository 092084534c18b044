package metaimage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/loader/internal/loadertest"
	"vastview/loader/internal/stream"
)

type mhaCase struct {
	name string
	spec string // for loadertest.NumpyData
	// header lines; {size} is replaced by the encoded data's size.
	header string
	// layout: "local" (data after the header), "file" (data in data.raw
	// after prefix), "list" / "pattern" (one file per slowest-axis step).
	layout  string
	prefix  string
	axes    string
	shape   []int
	dtype   loader.DType
	spacing []float64
	trans   []float64
}

var mhaCases = []mhaCase{
	{
		name: "uint8-local", spec: `{"dtype": "uint8", "shape": [3, 4, 5]}`,
		header: "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n" +
			"CompressedData = False\nTransformMatrix = 1 0 0 0 1 0 0 0 1\nOffset = 10 -20 30.5\n" +
			"CenterOfRotation = 0 0 0\nAnatomicalOrientation = RAI\nElementSpacing = 0.5 0.7 2\n" +
			"DimSize = 5 4 3\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n",
		layout: "local", axes: "ZYX", shape: []int{3, 4, 5}, dtype: loader.Uint8,
		spacing: []float64{2, 0.7, 0.5}, trans: []float64{30.5, -20, 10},
	},
	{
		name: "int16-local-msb", spec: `{"dtype": "int16", "shape": [3, 4, 5], "endian": ">"}`,
		header: "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = True\n" +
			"DimSize = 5 4 3\nElementType = MET_SHORT\nElementDataFile = LOCAL\n",
		layout: "local", axes: "ZYX", shape: []int{3, 4, 5}, dtype: loader.Int16,
	},
	{
		name: "float32-zlib-local", spec: `{"dtype": "float32", "shape": [4, 5, 6], "encoding": "zlib"}`,
		header: "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n" +
			"CompressedData = True\nCompressedDataSize = {size}\nElementSize = 1 1 3\n" +
			"DimSize = 6 5 4\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n",
		layout: "local", axes: "ZYX", shape: []int{4, 5, 6}, dtype: loader.Float32,
		spacing: []float64{3, 1, 1},
	},
	{
		name: "uint16-zlib-file-msb", spec: `{"dtype": "uint16", "shape": [4, 5, 6], "encoding": "zlib", "endian": ">"}`,
		header: "ObjectType = Image\nNDims = 3\nElementByteOrderMSB = True\nCompressedData = True\n" +
			"DimSize = 6 5 4\nElementType = MET_USHORT\nElementDataFile = data.raw\n",
		layout: "file", axes: "ZYX", shape: []int{4, 5, 6}, dtype: loader.Uint16,
	},
	{
		name: "uint16-file-headersize", spec: `{"dtype": "uint16", "shape": [3, 4, 5]}`,
		header: "ObjectType = Image\nNDims = 3\nDimSize = 5 4 3\nHeaderSize = 7\nPosition = 1 2 3\n" +
			"ElementType = MET_USHORT\nElementDataFile = data.raw\n",
		layout: "file", prefix: "skip me", axes: "ZYX", shape: []int{3, 4, 5}, dtype: loader.Uint16,
		trans: []float64{3, 2, 1},
	},
	{
		name: "uint32-headersize-end", spec: `{"dtype": "uint32", "shape": [3, 4, 5]}`,
		header: "ObjectType = Image\nNDims = 3\nDimSize = 5 4 3\nHeaderSize = -1\n" +
			"ElementType = MET_UINT\nElementDataFile = data.raw\n",
		layout: "file", prefix: "an unknown header of some length", axes: "ZYX", shape: []int{3, 4, 5}, dtype: loader.Uint32,
	},
	{
		name: "float64-list", spec: `{"dtype": "float64", "shape": [3, 4, 5]}`,
		header: "ObjectType = Image\nNDims = 3\nDimSize = 5 4 3\nElementType = MET_DOUBLE\n" +
			"ElementDataFile = LIST\nslice0.raw\nslice1.raw\nslice2.raw\n",
		layout: "list", axes: "ZYX", shape: []int{3, 4, 5}, dtype: loader.Float64,
	},
	{
		name: "int32-pattern", spec: `{"dtype": "int32", "shape": [3, 4, 5]}`,
		header: "ObjectType = Image\nNDims = 3\nDimSize = 5 4 3\nElementType = MET_INT\n" +
			"ElementDataFile = slice%d.raw 0 2 1 2\n",
		layout: "pattern", axes: "ZYX", shape: []int{3, 4, 5}, dtype: loader.Int32,
	},
	{
		name: "rgb-2d", spec: `{"dtype": "uint8", "shape": [3, 4, 5], "perm": [1, 2, 0]}`,
		header: "ObjectType = Image\nNDims = 2\nDimSize = 5 4\nElementNumberOfChannels = 3\n" +
			"ElementSpacing = 0.25 0.5\nElementType = MET_UCHAR_ARRAY\nElementDataFile = LOCAL\n",
		layout: "local", axes: "CYX", shape: []int{3, 4, 5}, dtype: loader.Uint8,
		spacing: []float64{1, 0.5, 0.25},
	},
	{
		name: "two-channel-3d-msb", spec: `{"dtype": "int16", "shape": [3, 2, 4, 5], "perm": [0, 2, 3, 1], "endian": ">"}`,
		header: "ObjectType = Image\nNDims = 3\nDimSize = 5 4 3\nElementNumberOfChannels = 2\n" +
			"BinaryDataByteOrderMSB = True\nElementType = MET_SHORT\nElementDataFile = LOCAL\n",
		layout: "local", axes: "ZCYX", shape: []int{3, 2, 4, 5}, dtype: loader.Int16,
	},
	{
		name: "time-4d", spec: `{"dtype": "int8", "shape": [2, 3, 4, 5]}`,
		header: "ObjectType = Image\nNDims = 4\nDimSize = 5 4 3 2\nElementSpacing = 1 1 2 0.5\n" +
			"ElementType = MET_CHAR\nElementDataFile = LOCAL\n",
		layout: "local", axes: "TZYX", shape: []int{2, 3, 4, 5}, dtype: loader.Int8,
		spacing: []float64{0.5, 2, 1, 1},
	},
	{
		name: "text-local", spec: `{"dtype": "float32", "shape": [3, 4, 5], "encoding": "ascii"}`,
		header: "ObjectType = Image\nNDims = 3\nBinaryData = False\nDimSize = 5 4 3\n" +
			"ElementType = MET_FLOAT\nElementDataFile = LOCAL\n",
		layout: "local", axes: "ZYX", shape: []int{3, 4, 5}, dtype: loader.Float32,
	},
}

func TestNumpyFixtures(t *testing.T) {
	for _, c := range mhaCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			data, want := loadertest.NumpyData(t, c.spec, dir)
			path := writeFixture(t, dir, c, data)
			checkCase(t, c, path, want)
		})
	}
}

// writeFixture writes the MetaImage file(s) of case c around the data
// bytes and returns the path to open.
func writeFixture(t *testing.T, dir string, c mhaCase, data []byte) string {
	header := strings.ReplaceAll(c.header, "{size}", fmt.Sprint(len(data)))
	switch c.layout {
	case "local":
		path := filepath.Join(dir, "a.mha")
		loadertest.WriteFile(t, path, append([]byte(header), data...))
		return path
	case "file":
		loadertest.WriteFile(t, filepath.Join(dir, "data.raw"), append([]byte(c.prefix), data...))
	default:
		n := c.shape[0]
		size := len(data) / n
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("slice%d.raw", i)
			loadertest.WriteFile(t, filepath.Join(dir, name), data[i*size:(i+1)*size])
		}
	}
	path := filepath.Join(dir, "h.mhd")
	loadertest.WriteFile(t, path, []byte(header))
	return path
}

func checkCase(t *testing.T, c mhaCase, path string, want []byte) {
	var files []string // the data files writeFixture wrote, but for the header
	switch c.layout {
	case "file":
		files = []string{filepath.Join(filepath.Dir(path), "data.raw")}
	case "list", "pattern":
		for i := 0; i < c.shape[0]; i++ {
			files = append(files, filepath.Join(filepath.Dir(path), fmt.Sprintf("slice%d.raw", i)))
		}
	}
	loadertest.Expect(t, path, loadertest.Want{Format: "metaimage", Axes: c.axes, Shape: c.shape, DType: c.dtype,
		Spacing: c.spacing, Translation: c.trans, DataFiles: files, Samples: want})
}

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	base := "ObjectType = Image\nNDims = 3\nDimSize = 4 3 2\nElementType = MET_USHORT\nElementDataFile = LOCAL\n"
	data := strings.Repeat("\x01\x02", 24)
	cases := []struct {
		name, file string
		unsupp     bool
		want       string
	}{
		{"truncated", base + data[:40], false, "truncated"},
		{"huge dims", strings.Replace(base, "4 3 2", "30000 30000 1000", 1) + data, false, "truncated"},
		{"absurd dims", strings.Replace(base, "4 3 2", "1000000000000 1000000000000 1000000000000", 1) + data, false, "too large"},
		{"zero dim", strings.Replace(base, "4 3 2", "4 0 2", 1) + data, false, "DimSize"},
		{"negative dim", strings.Replace(base, "4 3 2", "4 -3 2", 1) + data, false, "DimSize"},
		{"dim count", strings.Replace(base, "4 3 2", "4 3", 1) + data, false, "DimSize"},
		{"no element type", strings.Replace(base, "ElementType = MET_USHORT\n", "", 1) + data, false, "ElementType"},
		{"bad element type", strings.Replace(base, "MET_USHORT", "MET_QUUX", 1) + data, true, "MET_QUUX"},
		{"mesh", strings.Replace(base, "Image", "Mesh", 1) + data, true, "Mesh"},
		{"5-D", strings.Replace(strings.Replace(base, "NDims = 3", "NDims = 5", 1), "4 3 2", "4 3 2 1 1", 1) + data, true, "5-dimensional"},
		{"no data file", strings.Replace(base, "ElementDataFile = LOCAL\n", "", 1), false, "ElementDataFile"},
		{"missing data file", strings.Replace(base, "LOCAL", "nothere.raw", 1), false, "nothere.raw"},
		{"zlib garbage", strings.Replace(base, "NDims", "CompressedData = True\nNDims", 1) + data, false, "zlib"},
		{"zlib too small", strings.Replace(strings.Replace(base, "NDims", "CompressedData = True\nNDims", 1), "4 3 2", "4000 3000 2000", 1) + "x\x9c", false, "cannot hold"},
		{"list count", strings.Replace(base, "LOCAL", "LIST\na.raw", 1), false, "data files"},
		{"bad header size", strings.Replace(base, "NDims", "HeaderSize = -5\nNDims", 1) + data, false, "HeaderSize"},
		{"not a field", strings.Replace(base, "NDims", "garbage\nNDims", 1) + data, false, "not Key = Value"},
		{"long line", "ObjectType = Image\nComment = " + strings.Repeat("x", stream.MaxHeader) + "\n" + base + data, false, "longer"},
		{"text garbage", strings.Replace(base, "NDims", "BinaryData = False\nNDims", 1) + "1 2 3 x", false, "text sample 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".mha")
			loadertest.WriteFile(t, path, []byte(c.file))
			loadertest.BadFile(t, path, Open, true, c.unsupp, c.want)
		})
	}
}

func TestMatch(t *testing.T) {
	for head, want := range map[string]bool{
		"ObjectType = Image\nNDims = 3\n":            true,
		"NDims = 2\nDimSize = 3 4\n":                 true,
		"Comment = made by hand\nObjectType=Image\n": true,
		"ObjectType = Mesh\nElementDataFile = x\n":   false,
		"NRRD0004\ntype: float\n":                    false,
		"ENVI\nsamples = 100\n":                      false,
		"\x00\x01binary = data\n":                    false,
		"":                                           false,
	} {
		if got := Match("x.bin", []byte(head)); got != want {
			t.Errorf("Match(%q) = %v", head, got)
		}
	}
}

// Test64BitSamples reads MET_LONG_LONG and MET_ULONG_LONG volumes in
// either byte order, with values a float64 cannot hold, exactly.
func Test64BitSamples(t *testing.T) {
	dir := t.TempDir()
	vals := []uint64{1<<60 + 1, 1<<60 + 2, 1 << 63, 1<<64 - 1, 0, uint64(1<<63 - 1)}
	le := make([]byte, 8*len(vals))
	be := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(le[8*i:], v)
		binary.BigEndian.PutUint64(be[8*i:], v)
	}
	for _, c := range []struct {
		name, typ, msb, data string
		dt                   loader.DType
	}{
		{"i64be", "MET_LONG_LONG", "True", string(be), loader.Int64},
		{"u64le", "MET_ULONG_LONG", "False", string(le), loader.Uint64},
	} {
		path := filepath.Join(dir, c.name+".mha")
		loadertest.WriteFile(t, path, []byte("ObjectType = Image\nNDims = 3\nDimSize = 3 2 1\nElementType = "+c.typ+
			"\nElementByteOrderMSB = "+c.msb+"\nElementDataFile = LOCAL\n"+c.data))
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
