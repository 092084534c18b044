//go:build !jxr

package czi

// decodeJXR refuses JPEG XR subblocks: libjxr, which decodes them in a
// build with the tag jxr, can crash on a corrupt codestream (jxr.go).
func decodeJXR(_ []byte, _ int32, _, _ int) ([]byte, error) {
	return nil, unsupported("JPEG XR compression (decoded only by a build with -tags jxr and libjxr-dev)")
}
