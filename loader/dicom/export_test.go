package dicom

// What the command-line tests (package dicom_test, which imports the
// command line that imports this package) use of the fixtures.
type Series = series
type Expected = expected

var Generate = generate

func Ptr[T any](v T) *T { return &v }
