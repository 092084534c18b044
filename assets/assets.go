// Package assets holds what vastview embeds: the application icon.
package assets

import _ "embed"

// Icon is the application icon, a 256×256 PNG.
//
//go:embed icon.png
var Icon []byte
