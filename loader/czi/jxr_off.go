//go:build nojxr || !cgo

package czi

// decodeJXR refuses JPEG XR subblocks in a build with the tag nojxr, or
// without cgo, which needs no libjxr.
func decodeJXR(_ []byte, _ int32, _, _ int) ([]byte, error) {
	return nil, unsupported("JPEG XR compression (this build leaves out libjxr)")
}
