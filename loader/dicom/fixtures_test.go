package dicom

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"vastview/base/testtool"
)

// genScript writes DICOM series with pydicom (argv: folder, JSON spec) and
// then reads every file back with pydicom: for each series, expected_K.raw
// holds pydicom's pixel_array of each file (colour as channel, row,
// column), in the order of the slices' positions along the slice normal,
// computed here with numpy; expected_K.json the order and spacing.
const genScript = `
import json, sys, os, numpy as np, pydicom
from pydicom.dataset import FileDataset, FileMetaDataset, Dataset
from pydicom.sequence import Sequence
from pydicom.uid import generate_uid

out, spec = sys.argv[1], json.loads(sys.argv[2])
syntaxes = {"implicit": "1.2.840.10008.1.2", "explicit": "1.2.840.10008.1.2.1",
            "bigendian": "1.2.840.10008.1.2.2", "deflated": "1.2.840.10008.1.2.1.99"}
fileno = 0
for k, s in enumerate(spec["series"]):
    rng = np.random.default_rng(s.get("seed", k))
    dt = np.dtype(s["dtype"])
    rows, cols, spp = s["rows"], s["cols"], s.get("spp", 1)
    n, frames = s.get("n", 1), s.get("frames", 1)
    bs = s.get("bits_stored", dt.itemsize * 8)
    orient = np.array(s.get("orient", [1, 0, 0, 0, 1, 0]), float)
    normal = np.cross(orient[:3], orient[3:])
    origin = np.array(s.get("origin", [0, 0, 0]), float)
    step = s.get("step", 2.5)
    order = np.arange(n)
    if s.get("shuffle"):
        rng.shuffle(order)
    uid = s.get("uid") or generate_uid()
    files = []
    for i in range(n):
        syntax = syntaxes[s.get("syntax", "explicit")]
        meta = FileMetaDataset()
        meta.MediaStorageSOPClassUID = "1.2.840.10008.5.1.4.1.1.2" if frames == 1 else "1.2.840.10008.5.1.4.1.1.2.1"
        meta.MediaStorageSOPInstanceUID = generate_uid()
        meta.TransferSyntaxUID = syntax
        name = os.path.join(out, s.get("prefix", "IM") + "%05d" % fileno)
        fileno += 1
        ds = FileDataset(name, {}, file_meta=meta, preamble=b"\0" * 128)
        ds.is_little_endian = syntax != syntaxes["bigendian"]
        ds.is_implicit_VR = syntax == syntaxes["implicit"]
        ds.SOPClassUID = meta.MediaStorageSOPClassUID
        ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
        ds.Modality = "CT"
        if s.get("patient"):
            ds.PatientID, ds.PatientName, ds.StudyDate, ds.StudyTime = "P1", "Test^Patient", "20240101", "120000"
            ds.StudyInstanceUID, ds.StudyID = spec.setdefault("study", generate_uid()), "1"
        ds.SeriesInstanceUID = uid
        if "desc" in s: ds.SeriesDescription = s["desc"]
        if "number" in s: ds.SeriesNumber = s["number"]
        ds.InstanceNumber = int(order[i]) + 1
        pos = origin + normal * step * (order[i] % s["frame_period"] if s.get("frame_period") else order[i])
        ds.ImageOrientationPatient = [float(v) for v in orient]
        ds.Rows, ds.Columns, ds.SamplesPerPixel = rows, cols, spp
        ds.PhotometricInterpretation = s.get("photometric", "RGB" if spp == 3 else "MONOCHROME2")
        if spp == 3: ds.PlanarConfiguration = s.get("planar", 0)
        ds.BitsAllocated, ds.BitsStored, ds.HighBit = dt.itemsize * 8, bs, bs - 1
        ds.PixelRepresentation = 1 if dt.kind == "i" else 0
        ds.PixelSpacing = s.get("pixel_spacing", [0.5, 0.75])
        if "slope" in s:
            ds.RescaleSlope, ds.RescaleIntercept = s["slope"], s["intercept"]
        if "wc" in s:
            ds.WindowCenter, ds.WindowWidth = s["wc"], s["ww"]
        if frames > 1:
            ds.NumberOfFrames = frames
            pf = []
            for f in range(frames):
                g, pp = Dataset(), Dataset()
                fz = f % s["frame_period"] if s.get("frame_period") else f
                pp.ImagePositionPatient = [float(v) for v in origin + normal * step * fz * s.get("frame_sign", 1)]
                g.PlanePositionSequence = Sequence([pp])
                pf.append(g)
            ds.PerFrameFunctionalGroupsSequence = Sequence(pf)
            if "tr" in s:
                timing, sg = Dataset(), Dataset()
                timing.RepetitionTime = s["tr"]
                sg.MRTimingAndRelatedParametersSequence = Sequence([timing])
                ds.SharedFunctionalGroupsSequence = Sequence([sg])
        else:
            ds.ImagePositionPatient = [float(v) for v in pos]
        if bs < dt.itemsize * 8 and not s.get("raw_high_bits"):
            lo, hi = (-(1 << (bs - 1)), (1 << (bs - 1))) if dt.kind == "i" else (0, 1 << bs)
        else:
            info = np.iinfo(dt)
            lo, hi = int(info.min), int(info.max) + 1
        shape = (frames, rows, cols, spp)
        y, x = np.mgrid[0:rows, 0:cols]
        base = (lo + (hi - lo) * (0.25 + 0.5 * (x + y) / (rows + cols))).astype(np.int64)
        noise = rng.integers(-(hi - lo) // 16, (hi - lo) // 16 + 1, size=shape)
        a = np.clip(base[None, :, :, None] + noise, lo, hi - 1)
        if s.get("random"):
            a = rng.integers(lo, hi, size=shape)
        a = a.astype(dt)
        if spp == 1:
            a = a[..., 0]
        elif s.get("planar", 0) == 1:
            a = np.moveaxis(a, -1, 1)
        a = a.reshape((frames,) + a.shape[1:]) if frames > 1 else a[0]
        ds.PixelData = a.astype(dt.newbyteorder(">" if not ds.is_little_endian else "<")).tobytes()
        if s.get("rle"):
            ds.compress(pydicom.uid.RLELossless, encoding_plugin="pydicom")
        ds.save_as(name, write_like_original=False)
        files.append((name, float(np.dot(pos, normal)), int(order[i])))
    # Read back with pydicom and stack along the normal.
    files.sort(key=lambda f: (f[1], f[2]))
    planes, zs = [], []
    for name, z, _ in files:
        d = pydicom.dcmread(name)
        p = d.pixel_array
        if frames > 1:
            planes.extend(list(p))
        else:
            planes.append(p)
        zs.append(z)
    arr = np.stack(planes)
    if spp == 3:
        arr = np.moveaxis(arr, -1, 1)
    arr.astype(arr.dtype.newbyteorder("<")).tofile(os.path.join(out, "expected_%d.raw" % k))
    json.dump({"files": [os.path.basename(f[0]) for f in files], "zs": zs, "dtype": str(arr.dtype),
               "shape": list(arr.shape)}, open(os.path.join(out, "expected_%d.json" % k), "w"))
`

// series describes one series for genScript.
type series struct {
	UID          string    `json:"uid,omitempty"`
	Desc         string    `json:"desc,omitempty"`
	Number       *int      `json:"number,omitempty"`
	N            int       `json:"n,omitempty"`
	Frames       int       `json:"frames,omitempty"`
	FrameSign    int       `json:"frame_sign,omitempty"`
	FramePeriod  int       `json:"frame_period,omitempty"` // frames (slices, by InstanceNumber) repeat their positions after this many
	TR           float64   `json:"tr,omitempty"`           // RepetitionTime in the shared functional groups, ms
	Rows         int       `json:"rows"`
	Cols         int       `json:"cols"`
	DType        string    `json:"dtype"`
	BitsStored   int       `json:"bits_stored,omitempty"`
	RawHighBits  bool      `json:"raw_high_bits,omitempty"`
	SPP          int       `json:"spp,omitempty"`
	Planar       int       `json:"planar,omitempty"`
	Photometric  string    `json:"photometric,omitempty"`
	Syntax       string    `json:"syntax,omitempty"`
	RLE          bool      `json:"rle,omitempty"`
	Orient       []float64 `json:"orient,omitempty"`
	Origin       []float64 `json:"origin,omitempty"`
	Step         float64   `json:"step,omitempty"`
	PixelSpacing []float64 `json:"pixel_spacing,omitempty"`
	Slope        *float64  `json:"slope,omitempty"`
	Intercept    *float64  `json:"intercept,omitempty"`
	WC           *float64  `json:"wc,omitempty"`
	WW           *float64  `json:"ww,omitempty"`
	Shuffle      bool      `json:"shuffle,omitempty"`
	Random       bool      `json:"random,omitempty"`
	Prefix       string    `json:"prefix,omitempty"`
	Seed         int       `json:"seed,omitempty"`
	Patient      bool      `json:"patient,omitempty"` // the patient and study attributes a DICOMDIR needs
}

// expected is what genScript read back of one series.
type expected struct {
	Files []string  `json:"files"`
	Zs    []float64 `json:"zs"`
	DType string    `json:"dtype"`
	Shape []int     `json:"shape"`
	Data  []byte    `json:"-"`
}

// pythonOnce checks once that Debian's python3 has pydicom and numpy.
var (
	pythonOnce sync.Once
	pythonErr  error
)

// generate writes the series into a new folder (dir, if not "") and
// returns it with what pydicom read back.
func generate(t testing.TB, dir string, ss ...series) (string, []expected) {
	t.Helper()
	pythonOnce.Do(func() {
		if err := exec.Command(testtool.Python, "-c", "import pydicom, numpy").Run(); err != nil {
			pythonErr = err
		}
	})
	if pythonErr != nil {
		testtool.RequirePython(t, "pydicom", "numpy") // skips, or fails under CI, saying why
	}
	if dir == "" {
		dir = t.TempDir()
	}
	spec, err := json.Marshal(map[string]any{"series": ss})
	if err != nil {
		t.Fatal(err)
	}
	testtool.RunPython(t, genScript, dir, string(spec))
	out := make([]expected, len(ss))
	for k := range ss {
		b, err := os.ReadFile(filepath.Join(dir, "expected_"+itoa(k)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &out[k]); err != nil {
			t.Fatal(err)
		}
		if out[k].Data, err = os.ReadFile(filepath.Join(dir, "expected_"+itoa(k)+".raw")); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, "expected_"+itoa(k)+".raw"))
		os.Remove(filepath.Join(dir, "expected_"+itoa(k)+".json"))
	}
	return dir, out
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func ptr[T any](v T) *T { return &v }
