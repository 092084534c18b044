// Package assets holds what vastview embeds: the application icon and the
// font the overlays on pictures are written in.
package assets

import _ "embed"

// Icon is the application icon, a 256×256 PNG.
//
//go:embed icon.png
var Icon []byte

// TextFont is Noto Sans Regular (SIL Open Font License 1.1, in
// NotoSans-LICENSE.txt), the text font of the window's theme: scale bars
// and time stamps are written in it, on screen and in exported pictures.
//
//go:embed NotoSans-Regular.ttf
var TextFont []byte
