// Package formats makes every format vastview reads known to loader.Open,
// listed in one place: the order help, README and loader.Formats list them
// in, and the precedences that decide a path two formats claim. Importing
// it is all a command needs to read every format.
//
// Each format declares as data how its files, folders and addresses are
// recognised (see loader.Format); the registry checks every claim on a path
// and refuses one that several formats claim unless a precedence below says
// which reads it.
package formats

import (
	"vastview/loader"
	_ "vastview/loader/cine"
	_ "vastview/loader/czi"
	_ "vastview/loader/dicom"
	_ "vastview/loader/hdf5"
	_ "vastview/loader/lif"
	_ "vastview/loader/metaimage"
	_ "vastview/loader/mrc"
	_ "vastview/loader/n5"
	_ "vastview/loader/nd2"
	_ "vastview/loader/nifti"
	_ "vastview/loader/norpix"
	_ "vastview/loader/nrrd"
	_ "vastview/loader/sequence"
	_ "vastview/loader/spe"
	_ "vastview/loader/tiff"
	_ "vastview/loader/video"
	_ "vastview/loader/zarr"
)

// Order is every format, by name, in the order help and README name them.
var Order = []string{
	"tiff", "nrrd", "metaimage", "nifti", "mrc", "dicom", "hdf5", "bdv",
	"png", "jpeg", "gif", "bmp", "video", "sequence", "zarr", "n5",
	"cine", "norpix-seq", "spe", "czi", "lif", "nd2",
}

// Precedence lists the deliberate exceptions to "a path several formats
// claim is an error": where both formats of a pair claim a path, the first
// reads it.
var Precedence = []loader.Precedence{
	{Over: "dicom", Under: "sequence",
		Why: "a folder of DICOM files is a series, not frames: the frames format takes any folder"},
	{Over: "dicom", Under: "tiff",
		Why: "a DICOM file whose preamble is a TIFF header (a dual-personality file) is read as DICOM"},
	{Over: "n5", Under: "zarr",
		Why: "Zarr takes any address: one at or below a .n5 folder is an N5 container's"},
}

func init() { loader.Arrange(Order, Precedence) }
